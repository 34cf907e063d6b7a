import ActorNode
import Glibc

/// Starts `core-daemon`, waits until it serves, and restarts it when it dies.
///
/// A plain policy for now: a core that dies abnormally (a signal, a non-zero status) is
/// restarted after 100 ms; one that exits cleanly is not; one that cannot start is given up.
actor CoreSupervisor {
    /// How supervision ended.
    enum End: Equatable {
        /// ``stop()`` was called.
        case stopped
        /// The core exited with status 0 on its own (someone asked it to stop).
        case exitedCleanly
        /// The core could not be (re)started.
        case gaveUp(String)
    }

    let executable: String
    let socket: String
    /// More options for each core (state directory, fsync policy).
    let coreArguments: [String]
    let readyTimeout: Duration
    /// Where the core's stdout and stderr go; nil to share the launcher's.
    let logFD: Int32?
    private let log: @Sendable (String) -> Void
    private var child: ChildProcess?
    private var stopping = false

    init(executable: String, socket: String, coreArguments: [String] = [], readyTimeout: Duration, logFD: Int32? = nil, log: @escaping @Sendable (String) -> Void) {
        self.executable = executable
        self.socket = socket
        self.coreArguments = coreArguments
        self.readyTimeout = readyTimeout
        self.logFD = logFD
        self.log = log
    }

    /// The running core's pid.
    var pid: pid_t? { child?.pid }

    /// Starts the core and returns once it accepts connections.
    func start() async throws(CommandFailure) {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                executable, arguments: ["--socket", socket] + coreArguments, newProcessGroup: true,
                standardOutput: logFD, standardError: logFD)
        } catch {
            throw CommandFailure(.rejected, "cannot start \(executable): \(error.reason)")
        }
        self.child = child
        let deadline = ContinuousClock.now + readyTimeout
        while !UnixSocket.isServing(socket) {
            if let termination = child.termination {
                let log = logFD == nil ? "see its message above" : "see its log"
                throw CommandFailure(.rejected, "core-daemon \(termination) before serving \(socket); \(log)")
            }
            guard ContinuousClock.now < deadline else {
                await child.stop(grace: .seconds(1))
                throw CommandFailure(.unreachable, "core-daemon did not serve \(socket) within \(readyTimeout)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Watches the core until supervision ends, restarting it as needed.
    func supervise() async -> End {
        while let child {
            let started = ContinuousClock.now
            let termination = await child.waitForExit()
            if stopping { return .stopped }
            if termination.isSuccess {
                log("core-daemon (pid \(child.pid)) exited cleanly; not restarting it")
                return .exitedCleanly
            }
            if termination == .exited(ExitStatus.rejected.rawValue), ContinuousClock.now - started < .seconds(1) {
                return .gaveUp("core-daemon (pid \(child.pid)) refused to start; see \(logFD == nil ? "its message above" : "its log")")
            }
            log("core-daemon (pid \(child.pid)) \(termination); restarting it")
            try? await Task.sleep(for: .milliseconds(100))
            if stopping { return .stopped }
            do {
                try await start()
                log("core-daemon restarted (pid \(self.child?.pid ?? 0))")
            } catch {
                return .gaveUp(error.message)
            }
        }
        return .stopped
    }

    /// Stops the core (SIGTERM, then SIGKILL after `grace`) and clears a socket it left behind.
    func stop(grace: Duration = .seconds(5)) async {
        stopping = true
        if let child {
            await child.stop(grace: grace)
        }
        SocketLeftovers.remove(socket)
    }
}

/// Removing what a dead core left behind (its socket file and its lock), but only when no live
/// process owns them.
enum SocketLeftovers {
    static func remove(_ socket: String) {
        guard SocketLock.holder(of: socket) == nil, !UnixSocket.isServing(socket) else { return }
        var info = stat()
        if lstat(socket, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK {
            unlink(socket)
        }
        unlink(SocketLock.lockPath(for: socket))
    }
}
