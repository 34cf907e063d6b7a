import ActorNode
import Glibc
import Wire

/// What cama-launch does in each mode.
enum Modes {
    typealias Log = @Sendable (String) -> Void

    /// What a supervising launcher holds while it runs: the socket, its logs, the readiness
    /// listener, and the supervisor. ``release()`` gives it all back.
    struct Supervision {
        let binding: SocketBinding
        let logs: LogSink
        let notify: NotifyListener
        let supervisor: CoreSupervisor

        /// Opens the log, claims the socket, and starts the first core; throws if it is not
        /// ready in time (after releasing what it took). What the launcher does from here on,
        /// removing a stale socket included, goes to the log (and to stderr with `echo`).
        static func start(_ target: LaunchTarget, options: LaunchOptions, echo: Bool) async throws(CommandFailure) -> Supervision {
            let socket = target.socket
            let stateDirectory = target.stateDirectory
            do {
                try StateDirectory.prepare(stateDirectory)
            } catch {
                throw CommandFailure(.rejected, error.description)
            }
            let executable = target.core
            let logs: LogSink
            do {
                logs = try LogSink(directory: stateDirectory, echo: echo)
            } catch {
                throw CommandFailure(.rejected, "cannot open the log in \(stateDirectory): \(error.reason)")
            }
            let binding: SocketBinding
            do {
                binding = try SocketBinding.claim(socket) { logs.log(LaunchOptions.program, $0) }
            } catch {
                switch error {
                case let .alreadyServed(_, pid):
                    let owner = pid.map { " (pid \($0))" } ?? ""
                    throw CommandFailure(.rejected, "a core already serves \(socket)\(owner); stop it with 'cama-launch stop --socket \(socket)' or choose another --socket")
                case let .badPath(reason):
                    throw CommandFailure.usage(reason, program: LaunchOptions.program)
                default:
                    throw CommandFailure(.rejected, error.description)
                }
            }
            do {
                let notify = try NotifyListener(besides: socket)
                let supervisor = try CoreSupervisor(
                    executable: executable, socket: socket, listener: binding.fd,
                    coreArguments: ["--state-dir", stateDirectory] + (options.fsync.map { ["--fsync", $0] } ?? []),
                    policy: options.restartPolicy, readyTimeout: options.timeout, logs: logs, notify: notify,
                    stateDirectory: stateDirectory)
                let supervision = Supervision(binding: binding, logs: logs, notify: notify, supervisor: supervisor)
                do {
                    try await supervisor.start()
                } catch {
                    await supervisor.stop(grace: .seconds(1))
                    await logs.flush()
                    let lines = logs.lastLines.suffix(10).map { "  " + $0 }.joined(separator: "\n")
                    supervision.release()
                    throw CommandFailure(error.status, "\(error.message); its last log lines:\n\(lines)")
                }
                logs.log(LaunchOptions.program, "supervising \(PathName.fileName(of: executable)) (pid \(await supervisor.pid ?? 0)) on \(socket); log \(logs.path)")
                return supervision
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                binding.release()
                close(binding.fd)
                throw CommandFailure(.rejected, "cannot supervise: \(error)")
            }
        }

        /// Removes the socket (and the launcher's other files) and releases the lock.
        func release() {
            notify.remove()
            LauncherStatus.remove(for: binding.path)
            binding.release()
            close(binding.fd)
        }
    }

    /// The core (unless one serves already) and a shell in this terminal. Quitting the shell
    /// stops the core this launcher started; a core that was already there keeps running.
    static func interactive(_ target: LaunchTarget, options: LaunchOptions, log: @escaping Log) async throws(CommandFailure) -> Int32 {
        let socket = target.socket
        let shellClient = target.shell
        // Ctrl-C reaches the shell (our process group); we outlive it to stop the core.
        let signals = Signals.receive()
        var supervision: Supervision?
        // A core of ours, a launcher's, or systemd's socket (which starts a core on connect).
        if UnixSocket.isServing(socket) {
            log("a core already serves \(socket); attaching to it")
        } else {
            // The shell owns this terminal: the core and this launcher log to the state directory.
            let started = try await Supervision.start(target, options: options, echo: false)
            supervision = started
        }
        let shell: ChildProcess
        do {
            shell = try ChildProcess.spawn(shellClient, arguments: ["attach", "--socket", socket])
        } catch {
            await supervision?.supervisor.stop(grace: options.grace)
            supervision?.release()
            throw CommandFailure(.rejected, "cannot start \(shellClient): \(error.reason)")
        }
        let forwarder = Task {
            for await signal in signals where signal != SIGINT {
                shell.send(SIGTERM)
            }
        }
        // A supervisor that gives up ends the shell too (which gives the terminal back), and
        // then says why; the shell would otherwise wait out its reconnection window.
        let supervisor = supervision?.supervisor
        let gaveUp = Task { () -> String? in
            guard let supervisor else { return nil }
            guard case let .gaveUp(reason) = await supervisor.supervise() else { return nil }
            shell.send(SIGTERM)
            return reason
        }
        let termination = await shell.waitForExit()
        forwarder.cancel()
        if let supervision {
            await supervision.supervisor.stop(grace: options.grace)
            if let reason = await gaveUp.value {
                await supervision.logs.flush()
                supervision.release()
                throw CommandFailure(.rejected, "giving up: \(reason)")
            }
            await supervision.logs.flush()
            supervision.release()
        }
        switch termination {
        case let .exited(code): return code
        case let .signaled(signal): return 128 + signal
        }
    }

    /// The core only, supervised, until a stop signal or until it cannot be kept running.
    static func headless(_ target: LaunchTarget, options: LaunchOptions, log: @escaping Log) async throws(CommandFailure) -> Int32 {
        let signals = Signals.receive()
        let supervision = try await Supervision.start(target, options: options, echo: true)
        let supervisor = supervision.supervisor
        enum Outcome: Sendable { case signal(Int32), ended(CoreSupervisor.End) }
        let outcome = await race([
            { @Sendable in
                for await signal in signals { return Outcome.signal(signal) }
                return Outcome.ended(.stopped)
            },
            { @Sendable in Outcome.ended(await supervisor.supervise()) },
        ])
        let logs = supervision.logs
        switch outcome {
        case let .signal(signal):
            logs.log(LaunchOptions.program, "received \(Signals.name(signal)); stopping")
            await supervisor.stop(grace: options.grace)
        case let .ended(.gaveUp(reason)):
            await supervisor.stop(grace: options.grace)
            await logs.flush()
            supervision.release()
            throw CommandFailure(.rejected, "giving up: \(reason)")
        case .ended:
            await supervisor.stop(grace: options.grace)
        }
        await logs.flush()
        supervision.release()
        return 0
    }

    /// Starts a headless launcher in the background and returns once its core has welcomed a
    /// client (so it is really serving).
    static func detach(_ target: LaunchTarget, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let socket = target.socket
        if let holder = SocketLock.holder(of: socket) {
            throw CommandFailure(.rejected, "a core already serves \(socket) (pid \(holder)); stop it with 'cama-launch stop --socket \(socket)' or choose another --socket")
        }
        let stateDirectory = target.stateDirectory
        let nullFD = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard nullFD >= 0 else {
            throw CommandFailure(.rejected, "cannot open /dev/null: \(SystemError("open").reason)")
        }
        defer { close(nullFD) }
        let launcher: ChildProcess
        do {
            launcher = try ChildProcess.spawn(
                CompanionExecutables.current,
                arguments: ["--headless", "--socket", socket, "--state-dir", stateDirectory] + options.passedOn,
                newSession: true, standardInput: nullFD, standardOutput: nullFD, standardError: nullFD)
        } catch {
            throw CommandFailure(.rejected, "cannot start a background launcher: \(error.reason)")
        }
        let logPath = stateDirectory + "/core.log"
        let deadline = ContinuousClock.now + options.timeout
        while true {
            if let termination = launcher.termination {
                throw CommandFailure(.rejected, "the background launcher \(termination); see \(logPath)")
            }
            if await welcomes(socket, timeout: .milliseconds(500)) { break }
            guard ContinuousClock.now < deadline else {
                launcher.send(SIGTERM)
                throw CommandFailure(.unreachable, "the core did not serve \(socket) within \(options.timeout.readable); see \(logPath)")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await StandardStreams.out("core serving \(socket) (launcher pid \(launcher.pid), log \(logPath))\n")
        return 0
    }

    /// Whether a core at `socket` welcomes a client within `timeout`.
    private static func welcomes(_ socket: String, timeout: Duration) async -> Bool {
        guard let session = try? await SocketClient.connect(to: socket, timeout: timeout) else { return false }
        let link = ShellLink<JSONValue, JSONValue>(session: session, hello: Hello(role: .script, client: "cama-launch-\(getpid())", name: "cama-launch"))
        let welcomed = (try? await link.open(timeout: timeout)) != nil
        await link.close()
        return welcomed
    }

    /// Stops whoever serves the socket (the process holding its lock: a launcher, or a core on
    /// its own) and waits until it is gone.
    static func stop(_ target: LaunchTarget, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let socket = target.socket
        guard let pid = SocketLock.holder(of: socket) else {
            if UnixSocket.isServing(socket) {
                throw CommandFailure(.rejected, "\(socket) is served without a lock file beside it, so not by a core or launcher of ours: probably by systemd ('systemctl --user stop cama.socket cama.service' stops that)")
            }
            throw CommandFailure(.unreachable, "no core is running on \(socket)")
        }
        let isLauncher = LauncherStatus.read(for: socket)?.launcher == pid
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + options.timeout + options.grace
        while SocketLock.holder(of: socket) != nil || UnixSocket.isServing(socket) {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure(.unreachable, "\(isLauncher ? "the launcher" : "the core") (pid \(pid)) did not stop within \(CoreSupervisor.seconds(options.timeout + options.grace)); 'kill -KILL \(pid)' ends it")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await StandardStreams.out(isLauncher
            ? "stopped the launcher (pid \(pid)) and its core on \(socket)\n"
            : "stopped the core on \(socket) (pid \(pid))\n")
        return 0
    }

    /// Asks the core who it is and how it is doing, and the launcher (if any) how long it has
    /// been supervising it.
    static func status(_ target: LaunchTarget, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let socket = target.socket
        let session: ShellSession
        do {
            session = try await SocketClient.connect(to: socket, timeout: options.timeout)
        } catch {
            // The same app's words: its --core and --shell, if they were given.
            let app = [options.core.map { "--core \($0)" }, options.shell.map { "--shell \($0)" }].compactMap { $0 }.joined(separator: " ")
            throw CommandFailure(.unreachable, "\(error); start one with 'cama-launch --detach\(app.isEmpty ? "" : " " + app)'")
        }
        let link = ShellLink<JSONValue, JSONValue>(session: session, hello: Hello(role: .script, client: "cama-launch-\(getpid())", name: "cama-launch status"))
        let welcome: Welcome<JSONValue>
        do {
            welcome = try await link.open(timeout: options.timeout)
        } catch {
            if case .versionMismatch = error { throw CommandFailure(.protocolError, error.description) }
            if case .protocolError = error { throw CommandFailure(.protocolError, error.description) }
            throw CommandFailure(.unreachable, error.description)
        }
        await link.close()
        var lines = ["socket:    \(socket)"]
        if let launcher = LauncherStatus.read(for: socket), launcher.launcher == SocketLock.holder(of: socket) {
            let up = launcher.coreStartedAt.map { " up \(duration(since: $0))," } ?? ""
            lines.append("launcher:  pid \(launcher.launcher), supervising for \(duration(since: launcher.startedAt)), \(launcher.restarts) restart\(launcher.restarts == 1 ? "" : "s")")
            lines.append("core:      pid \(welcome.pid),\(up) protocol \(welcome.protocolVersion), instance \(welcome.core)")
            lines.append("state:     \(launcher.stateDirectory) (log \(launcher.log))")
        } else {
            lines.append("core:      pid \(welcome.pid) (not under a launcher), protocol \(welcome.protocolVersion), instance \(welcome.core)")
        }
        lines.append("revision:  \(welcome.revision)")
        lines.append("shells:    \(welcome.shells) attached")
        await StandardStreams.out(lines.joined(separator: "\n") + "\n")
        return 0
    }

    private static func duration(since start: Double) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = max(0, Int(Double(now.tv_sec) - start))
        if seconds < 60 { return "\(seconds)s" }
        if seconds < 3600 { return "\(seconds / 60)m\(seconds % 60)s" }
        return "\(seconds / 3600)h\(seconds / 60 % 60)m"
    }
}
