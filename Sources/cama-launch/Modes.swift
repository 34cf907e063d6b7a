import ActorNode
import Glibc
import Wire

/// What cama-launch does in each mode.
enum Modes {
    typealias Log = @Sendable (String) -> Void

    /// The core (unless one serves already) and a shell in this terminal. Quitting the shell
    /// stops the core this launcher started; a core that was already there keeps running.
    static func interactive(socket: String, options: LaunchOptions, log: @escaping Log) async throws(CommandFailure) -> Int32 {
        let shellClient = try CompanionExecutables.locate("shell-client")
        // Ctrl-C reaches the shell (our process group); we outlive it to stop the core.
        let signals = Signals.stream([SIGINT, SIGTERM, SIGHUP])
        var supervisor: CoreSupervisor?
        if UnixSocket.isServing(socket) {
            log("a core already serves \(socket); attaching to it")
        } else {
            // The shell owns this terminal: the core (and this launcher) log to a file.
            let logFile = try openLog("core.log", options: options)
            let fileWriter = BlockingWriter(fd: logFile.fd, name: "cama-log")
            let started = CoreSupervisor(
                executable: try CompanionExecutables.locate("core-daemon"), socket: socket,
                coreArguments: options.coreArguments, readyTimeout: options.timeout, logFD: logFile.fd,
                log: { fileWriter.enqueue(LogLine.line(LaunchOptions.program, $0)) })
            try await started.start()
            Task { _ = await started.supervise() }
            supervisor = started
        }
        let shell: ChildProcess
        do {
            shell = try ChildProcess.spawn(shellClient, arguments: ["attach", "--socket", socket])
        } catch {
            await supervisor?.stop()
            throw CommandFailure(.rejected, "cannot start \(shellClient): \(error.reason)")
        }
        let forwarder = Task {
            for await signal in signals where signal != SIGINT {
                shell.send(SIGTERM)
            }
        }
        let termination = await shell.waitForExit()
        forwarder.cancel()
        await supervisor?.stop()
        switch termination {
        case let .exited(code): return code
        case let .signaled(signal): return 128 + signal
        }
    }

    /// The core only, supervised, until a stop signal or until it cannot be kept running.
    static func headless(socket: String, options: LaunchOptions, log: @escaping Log) async throws(CommandFailure) -> Int32 {
        try refuseIfServing(socket)
        let signals = Signals.stream([SIGINT, SIGTERM, SIGHUP])
        let supervisor = CoreSupervisor(
            executable: try CompanionExecutables.locate("core-daemon"), socket: socket,
            coreArguments: options.coreArguments, readyTimeout: options.timeout, log: log)
        try await supervisor.start()
        log("supervising core-daemon (pid \(await supervisor.pid ?? 0)) on \(socket)")

        enum Outcome: Sendable { case signal(Int32), ended(CoreSupervisor.End) }
        let outcome = await race([
            { @Sendable in
                for await signal in signals { return Outcome.signal(signal) }
                return Outcome.ended(.stopped)
            },
            { @Sendable in Outcome.ended(await supervisor.supervise()) },
        ])
        switch outcome {
        case let .signal(signal):
            log("received \(Signals.name(signal)); stopping the core")
            await supervisor.stop()
            return 0
        case let .ended(.gaveUp(reason)):
            await supervisor.stop()
            throw CommandFailure(.rejected, "giving up: \(reason)")
        case .ended:
            await supervisor.stop()
            return 0
        }
    }

    /// Opens (creating it and its directory) a log file in the state directory, for appending.
    static func openLog(_ name: String, options: LaunchOptions) throws(CommandFailure) -> (path: String, fd: Int32) {
        let stateDirectory = StateDirectory.resolve(option: options.stateDirectory, environment: ProcessEnvironment.current)
        do {
            try StateDirectory.create(stateDirectory)
        } catch {
            throw CommandFailure(.rejected, "cannot create the state directory: \(error); choose another with --state-dir")
        }
        let path = stateDirectory + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CommandFailure(.rejected, "cannot open \(path): \(SystemError("open").reason); choose another --state-dir")
        }
        return (path, fd)
    }

    /// Starts a headless launcher in the background and returns once its core serves.
    static func detach(socket: String, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        try refuseIfServing(socket)
        let (logPath, logFD) = try openLog("launcher.log", options: options)
        let nullFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard nullFD >= 0 else {
            throw CommandFailure(.rejected, "cannot open /dev/null: \(SystemError("open").reason)")
        }
        defer {
            close(logFD)
            close(nullFD)
        }
        let launcher: ChildProcess
        do {
            launcher = try ChildProcess.spawn(
                CompanionExecutables.current,
                arguments: ["--headless", "--socket", socket, "--timeout", "\(options.timeout.seconds)"] + options.coreArguments,
                newSession: true, standardInput: nullFD, standardOutput: logFD, standardError: logFD)
        } catch {
            throw CommandFailure(.rejected, "cannot start a background launcher: \(error.reason)")
        }
        let deadline = ContinuousClock.now + options.timeout
        while !UnixSocket.isServing(socket) {
            if let termination = launcher.termination {
                throw CommandFailure(.rejected, "the background launcher \(termination); see \(logPath)")
            }
            guard ContinuousClock.now < deadline else {
                launcher.send(SIGTERM)
                throw CommandFailure(.unreachable, "the core did not serve \(socket) within \(options.timeout); see \(logPath)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await StandardStreams.out("core serving \(socket) (launcher pid \(launcher.pid), log \(logPath))\n")
        return 0
    }

    /// Stops whoever serves the socket (the process holding its lock) and waits until it is gone.
    static func stop(socket: String, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        guard let pid = SocketLock.holder(of: socket) else {
            if UnixSocket.isServing(socket) {
                throw CommandFailure(.rejected, "a process serves \(socket) without holding its lock; stop it by its pid")
            }
            SocketLeftovers.remove(socket)
            throw CommandFailure(.unreachable, "no core is running on \(socket)")
        }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + options.timeout
        while SocketLock.holder(of: socket) != nil || UnixSocket.isServing(socket) {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure(.unreachable, "the core (pid \(pid)) did not stop within \(options.timeout); 'kill -KILL \(pid)' ends it")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        await StandardStreams.out("stopped the core on \(socket) (pid \(pid))\n")
        return 0
    }

    /// Asks the core who it is and how it is doing.
    static func status(socket: String, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let session: ShellSession<JSONValue, JSONValue>
        do {
            session = try await SocketClient.connect(to: socket, timeout: options.timeout)
        } catch {
            throw CommandFailure(.unreachable, "\(error); start one with 'cama-launch --detach'")
        }
        let link = ShellLink(session: session, hello: Hello(role: .script, client: "cama-launch-\(getpid())", name: "cama-launch status"))
        let welcome: Welcome<JSONValue>
        do {
            welcome = try await link.open(timeout: options.timeout)
        } catch {
            if case .versionMismatch = error { throw CommandFailure(.protocolError, error.description) }
            if case .protocolError = error { throw CommandFailure(.protocolError, error.description) }
            throw CommandFailure(.unreachable, error.description)
        }
        await link.close()
        let owner = SocketLock.holder(of: socket).map { $0 == welcome.pid ? "" : " (socket held by pid \($0))" } ?? ""
        await StandardStreams.out("""
        socket:   \(socket)
        core:     pid \(welcome.pid)\(owner), protocol \(welcome.protocolVersion), instance \(welcome.core)
        revision: \(welcome.revision)
        shells:   \(welcome.shells) attached

        """)
        return 0
    }

    private static func refuseIfServing(_ socket: String) throws(CommandFailure) {
        if UnixSocket.isServing(socket) {
            let owner = SocketLock.holder(of: socket).map { " (pid \($0))" } ?? ""
            throw CommandFailure(.rejected, "a core already serves \(socket)\(owner); stop it with 'cama-launch stop --socket \(socket)' or choose another --socket")
        }
    }
}
