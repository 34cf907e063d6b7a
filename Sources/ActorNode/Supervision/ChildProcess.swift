import CSystemShims
import Glibc
import Synchronization

/// A process we started, whose exit we can await without blocking Swift's cooperative pool
/// (waitpid runs on a thread of its own).
package final class ChildProcess: Sendable {
    /// How a process ended.
    package enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        package var description: String {
            switch self {
            case let .exited(code): return "exited with status \(code)"
            case let .signaled(signal): return "was killed by \(Signals.name(signal))"
            }
        }

        /// A zero exit status.
        package var isSuccess: Bool { self == .exited(0) }
    }

    package let pid: pid_t
    package let executable: String
    private let state = Mutex<WaitState>(WaitState())

    private struct WaitState {
        var termination: Termination?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Termination?, Never>] = [:]
        /// Waiters whose timeout fired before they started waiting.
        var expired: Set<Int> = []
    }

    /// Starts `executable` with `arguments` (not including argv[0]).
    ///
    /// The child starts with every signal at its default disposition and none blocked, whatever
    /// this process ignores. With `newProcessGroup` it leaves our process group, so a Ctrl-C
    /// typed at our terminal does not reach it; with `newSession` it also leaves our terminal.
    /// `environment` replaces ours when given. It gets the standard descriptors and those in
    /// `descriptors`, and no other (on glibc 2.34 and later): nothing this process holds leaks
    /// into it, close-on-exec or not.
    package static func spawn(
        _ executable: String,
        arguments: [String],
        environment: [String: String]? = nil,
        newProcessGroup: Bool = false,
        newSession: Bool = false,
        standardInput: Int32? = nil,
        standardOutput: Int32? = nil,
        standardError: Int32? = nil,
        passing descriptors: [(source: Int32, target: Int32)] = []
    ) throws(SystemError) -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if newSession {
            flags |= 0x80 // POSIX_SPAWN_SETSID (glibc 2.26+), not exported to Swift
        } else if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Each passed descriptor is first moved out of the way (to a number above every
        // target), so that placing one never overwrites another before it is placed. dup2
        // clears close-on-exec on the copy; the originals stay close-on-exec.
        var mapping = [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)]
            .compactMap { source, target in source.map { ($0, target) } }
        mapping += descriptors.map { ($0.source, $0.target) }
        let scratch = (mapping.map { max($0.0, $0.1) }.max() ?? 2) + 1
        for (offset, (source, _)) in mapping.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, scratch + Int32(offset))
        }
        for (offset, (_, target)) in mapping.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, scratch + Int32(offset), target)
            posix_spawn_file_actions_addclose(&actions, scratch + Int32(offset))
        }
        // Then nothing else: a descriptor this process holds without close-on-exec (one made
        // by code we do not control, a test's socketpair) does not leak into the child, where
        // it would count against its limit and keep a peer's connection open.
        _ = cama_spawn_close_from(&actions, max(2, mapping.map(\.1).max() ?? 2) + 1)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentStrings: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { environmentStrings?.forEach { free($0) } }

        var pid = pid_t()
        let result: Int32
        if let environmentStrings {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environmentStrings)
        } else {
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard result == 0 else { throw SystemError("posix_spawn \(executable)", code: result) }
        let child = ChildProcess(pid: pid, executable: executable)
        child.startWaiting()
        return child
    }

    private init(pid: pid_t, executable: String) {
        self.pid = pid
        self.executable = executable
    }

    private func startWaiting() {
        SystemThread.detach(name: "cama-wait") { [self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else {
                    finish(.exited(-1))
                    return
                }
            }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out: Swift does not import the macros.
            let signal = status & 0x7f
            finish(signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal))
        }
    }

    private func finish(_ termination: Termination) {
        let waiters = state.withLock { state in
            state.termination = termination
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    /// How the process ended, once it has.
    package var termination: Termination? {
        state.withLock { $0.termination }
    }

    /// Waits for the process to end.
    package func waitForExit() async -> Termination {
        await waitForExit(timeout: nil)!
    }

    /// Waits at most `timeout` for the process to end; nil if it is still running by then.
    package func waitForExit(timeout: Duration?) async -> Termination? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = timeout.map { timeout in
            Task {
                await EventLoop.shared.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                let waiter = self.state.withLock { state in
                    guard let waiter = state.waiters.removeValue(forKey: id) else {
                        state.expired.insert(id)
                        return nil as CheckedContinuation<Termination?, Never>?
                    }
                    return waiter
                }
                waiter?.resume(returning: nil)
            }
        }
        defer { timer?.cancel() }
        return await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Termination?? in
                if let termination = state.termination { return .some(termination) }
                if state.expired.remove(id) != nil { return .some(nil) }
                state.waiters[id] = continuation
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// How the process ended, waiting for it on the calling thread (which may block: never
    /// Swift's cooperative pool) until `deadline`; nil if it is still running then.
    /// - Parameter deadline: when to stop waiting.
    package func termination(before deadline: MonotonicClock.Instant) -> Termination? {
        while true {
            if let termination { return termination }
            guard MonotonicClock.Instant.now < deadline else { return nil }
            usleep(2_000)
        }
    }

    /// Sends `signal` unless the process has already been reaped (its pid may be reused).
    package func send(_ signal: Int32) {
        state.withLock { state in
            if state.termination == nil { kill(pid, signal) }
        }
    }

    /// Asks the process to stop with SIGTERM, and SIGKILLs it if it has not ended after `grace`.
    @discardableResult
    package func stop(grace: Duration = .seconds(5)) async -> Termination {
        send(SIGTERM)
        if let termination = await waitForExit(timeout: grace) { return termination }
        send(SIGKILL)
        return await waitForExit()
    }
}
