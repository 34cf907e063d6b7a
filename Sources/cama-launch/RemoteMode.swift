import ActorNode
import Glibc

extension Modes {
    /// `cama-launch --ssh HOST`: a shell here, attached through ssh to the core on HOST. If no
    /// core serves there (`cama-launch status` on HOST says so), one is started there first,
    /// supervised and detached (`cama-launch --detach` on HOST), as the local mode starts one;
    /// it is a server's core, so quitting the shell leaves it running.
    /// - Parameters:
    ///   - host: `[USER@]HOST`.
    ///   - options: the command line; the socket, state directory, fsync and restart policy go
    ///     to HOST's launcher, the core and shell by name (HOST has its own paths).
    static func remote(_ host: String, options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let shell = try CompanionExecutables.locate(options.shell ?? "shell-client", option: "--shell")
        let remoteShell = options.remoteCommand ?? PathName.fileName(of: options.shell ?? "shell-client")
        // HOST's tools are installed together: its cama-launch is beside its shell.
        let remoteLauncher = remoteShell.contains("/") ? PathName.join(PathName.directory(of: remoteShell), "cama-launch") : "cama-launch"
        var placement: [String] = []
        if let socket = options.socket { placement += ["--socket", socket] }
        if let stateDirectory = options.stateDirectory { placement += ["--state-dir", stateDirectory] }
        if let core = options.core { placement += ["--core", PathName.fileName(of: core)] }
        if let shellOption = options.shell { placement += ["--shell", PathName.fileName(of: shellOption)] }
        var detachOptions = ["--timeout", "\(options.timeout.seconds)", "--grace", "\(options.grace.seconds)",
                             "--max-restarts", "\(options.restartPolicy.maximumRestarts)", "--restart-window", "\(options.restartPolicy.window.seconds)"]
        if let fsync = options.fsync { detachOptions += ["--fsync", fsync] }

        let route = SSHRoute(
            host: host, sshCommand: ProcessEnvironment.value(SSHRoute.commandVariable), remoteCommand: remoteLauncher,
            socket: nil, controlDirectory: SSHRoute.preparedControlDirectory())
        let interactive = StandardStreams.isTerminal(0) && StandardStreams.isTerminal(2)
        let line = { (words: [String]) in ([remoteLauncher] + words.map(SSHRoute.quoted)).joined(separator: " ") }
        let (asking, starting) = (line(["status"] + placement), line(["--detach"] + placement + detachOptions))
        let timeout = options.timeout + .seconds(30)
        // Asking and starting both block on ssh: on a thread of their own.
        let status = await SystemThread.run(name: "cama-ssh") { route.run(asking, timeout: timeout, interactive: interactive) }
        switch status?.termination {
        case .exited(0)?:
            break
        case .exited(3)?:
            let started = await SystemThread.run(name: "cama-ssh") { route.run(starting, timeout: timeout, interactive: false) }
            guard let started, started.termination.isSuccess else {
                throw CommandFailure(.unreachable, "cannot start a core on \(PeerText.escaped(host)): " + route.failure(started?.termination, program: remoteLauncher, said: started.flatMap { SSHRoute.lastLine(of: $0.errors) }))
            }
        case let termination:
            throw CommandFailure(.unreachable, route.failure(termination, program: remoteLauncher, said: status.flatMap { SSHRoute.lastLine(of: $0.errors) }))
        }

        var arguments = ["attach", "--ssh", host, "--remote-command", remoteShell]
        if let socket = options.socket { arguments += ["--socket", socket] }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(shell, arguments: arguments)
        } catch {
            throw CommandFailure(.rejected, "cannot start \(shell): \(error.reason)")
        }
        // Ctrl-C reaches the shell (our process group); the stop signals end it.
        let forwarder = Task {
            for await signal in Signals.receive() where signal != SIGINT {
                child.send(SIGTERM)
            }
        }
        let termination = await child.waitForExit()
        forwarder.cancel()
        switch termination {
        case let .exited(code): return code
        case let .signaled(signal): return 128 + signal
        }
    }
}
