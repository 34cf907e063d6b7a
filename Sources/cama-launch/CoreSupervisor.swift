import ActorNode
import FoundationEssentials
import Glibc

/// Starts `core-daemon`, hands it the launcher's listening socket, waits until it reports
/// ready, and restarts it when it dies, by the ``RestartPolicy``.
///
/// Each core gets, as systemd would give it: the listening socket as descriptor 3 with
/// `LISTEN_FDS=1` and `LISTEN_PID` (set by a `sh` trampoline, since only the child knows its
/// pid before exec); `NOTIFY_SOCKET` for its `READY=1`; and, as descriptor 4, the read end of a
/// pipe only the launcher writes to, so the core notices at once if the launcher dies.
actor CoreSupervisor {
    /// How supervision ended.
    enum End: Equatable {
        /// ``stop(grace:)`` was called.
        case stopped
        /// The core exited with status 0 on its own (someone asked it to stop).
        case exitedCleanly
        /// The core kept dying; the message says how often and why.
        case gaveUp(String)
    }

    let executable: String
    /// The core's name in log lines and messages (`core-daemon`, `chat-core`).
    var coreName: String { PathName.fileName(of: executable) }
    let socket: String
    let listener: Int32
    /// More options for each core (state directory, fsync policy).
    let coreArguments: [String]
    let policy: RestartPolicy
    let readyTimeout: Duration
    private let logs: LogSink
    private let notify: NotifyListener
    private let statusTemplate: LauncherStatus
    /// The launcher's end of the lifeline pipe; the core holds the other.
    private let lifeline: (read: Int32, write: Int32)

    private var child: ChildProcess?
    private var childStarted = ContinuousClock.now
    private var stopping = false
    private var restarts = 0
    private var history = RestartHistory()
    private var delay: Duration

    init(
        executable: String, socket: String, listener: Int32, coreArguments: [String],
        policy: RestartPolicy, readyTimeout: Duration, logs: LogSink, notify: NotifyListener,
        stateDirectory: String
    ) throws(SystemError) {
        self.executable = executable
        self.socket = socket
        self.listener = listener
        self.coreArguments = coreArguments
        self.policy = policy
        self.readyTimeout = readyTimeout
        self.logs = logs
        self.notify = notify
        delay = policy.initialDelay
        lifeline = try PipePair.make()
        statusTemplate = LauncherStatus(
            launcher: getpid(), startedAt: Date().timeIntervalSince1970, core: nil, coreStartedAt: nil,
            restarts: 0, stateDirectory: stateDirectory, log: logs.path)
    }

    /// The running core's pid.
    var pid: pid_t? { child?.pid }

    private func log(_ message: String) {
        logs.log(LaunchOptions.program, message)
    }

    /// Starts a core and returns once it reports ready; throws if it dies first or is not ready
    /// in time.
    func start() async throws(CommandFailure) {
        var environment = ProcessEnvironment.current
        environment["LISTEN_FDS"] = "1"
        environment["NOTIFY_SOCKET"] = notify.address
        environment[SupervisorWatch.variable] = "4"
        environment["LISTEN_PID"] = nil
        let child: ChildProcess
        do {
            // `$$` is the shell's pid, which `exec` hands on to the core.
            child = try ChildProcess.spawn(
                "/bin/sh", arguments: ["-c", #"LISTEN_PID=$$ exec "$0" "$@""#, executable, "--socket", socket] + coreArguments,
                environment: environment, newProcessGroup: true,
                standardOutput: logs.writeFD, standardError: logs.writeFD,
                passing: [(listener, SocketActivation.firstDescriptor), (lifeline.read, 4)])
        } catch {
            throw CommandFailure(.rejected, "cannot start \(executable): \(error.reason)")
        }
        self.child = child
        childStarted = ContinuousClock.now
        publishStatus()
        let deadline = ContinuousClock.now + readyTimeout
        while true {
            if let termination = child.termination {
                throw CommandFailure(.rejected, "\(coreName) \(termination) before it was ready")
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else {
                await child.stop(grace: .seconds(1))
                throw CommandFailure(.unreachable, "\(coreName) was not ready within \(readyTimeout.readable)")
            }
            let messages = notify.messages
            let slice = min(remaining, .milliseconds(200))
            let message = await race([
                { @Sendable in await messages.receive() },
                { @Sendable in
                    // Returns within the slice either way, so no waiter outlives the race.
                    _ = await child.waitForExit(timeout: slice)
                    return [:]
                },
            ])
            if let message, message["READY"] == "1", message["MAINPID"].flatMap(Int32.init) ?? child.pid == child.pid {
                return
            }
        }
    }

    /// Watches the core until supervision ends, restarting it as the policy says.
    func supervise() async -> End {
        while let child {
            let termination = await child.waitForExit()
            if stopping { return .stopped }
            if termination.isSuccess {
                log("\(coreName) (pid \(child.pid)) exited cleanly; not restarting it")
                return .exitedCleanly
            }
            if let end = await failed(child, termination) { return end }
            var started = false
            while !started {
                if stopping { return .stopped }
                do {
                    try await start()
                    started = true
                    log("\(self.coreName) restarted (pid \(self.child?.pid ?? 0))")
                } catch {
                    log(error.message)
                    guard let failedChild = self.child else { return .gaveUp(error.message) }
                    if let end = await failed(failedChild, failedChild.termination ?? .exited(-1)) { return end }
                }
            }
        }
        return .stopped
    }

    /// Counts a failure against the policy; waits the backoff, or says why it gives up.
    private func failed(_ child: ChildProcess, _ termination: ChildProcess.Termination) async -> End? {
        let now = ContinuousClock.now
        let ran = now - childStarted
        if ran >= policy.healthyAfter { delay = policy.initialDelay }
        let recent = history.record(now, window: policy.window)
        if recent.count > policy.maximumRestarts {
            let span = now - recent.first!
            await logs.flush()
            let lines = logs.lastLines.suffix(10).map { "  " + $0 }.joined(separator: "\n")
            let limit = "\(policy.maximumRestarts) restart\(policy.maximumRestarts == 1 ? "" : "s")"
            let reason = "\(coreName) failed \(recent.count) \(recent.count == 1 ? "time" : "times") in \(Self.seconds(span)) (more than \(limit) within \(Self.seconds(policy.window))); the last was pid \(child.pid), which \(termination)"
            // Said in the log too: a detached launcher's stderr goes nowhere.
            log("giving up: \(reason)")
            return .gaveUp("\(reason). Its last log lines:\n\(lines)")
        }
        restarts += 1
        log("\(coreName) (pid \(child.pid)) \(termination) after \(Self.seconds(ran)); restarting in \(Self.seconds(delay))")
        try? await Task.sleep(for: delay)
        delay = policy.next(after: delay)
        return nil
    }

    /// Stops the core: SIGTERM, and SIGKILL if it is still there after `grace`.
    func stop(grace: Duration) async {
        stopping = true
        if let child, child.termination == nil {
            log("stopping \(coreName) (pid \(child.pid))")
            if await child.stop(grace: grace) == .signaled(SIGKILL) {
                log("\(coreName) (pid \(child.pid)) did not stop within \(Self.seconds(grace)); killed it")
            }
        }
    }

    private func publishStatus() {
        var status = statusTemplate
        status.core = child?.pid
        status.coreStartedAt = Date().timeIntervalSince1970
        status.restarts = restarts
        status.write(for: socket)
    }

    static func seconds(_ duration: Duration) -> String {
        let value = (duration.seconds * 10).rounded() / 10
        return "\(value) s"
    }
}
