import ActorNode
import Glibc
import TodoContract
import Wire

/// `shell-client attach`: the full-screen interface when stdin and stdout are terminals, else
/// line mode (type verbs, see the state after every change made by anyone), so pipes and
/// scripts keep working.
enum AttachCommand {
    static func run(options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let path = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
        if FullScreenShell.applies {
            // The stop signals are the shell's from the start: one typed while it connects ends
            // it at once, and one that comes once the screen is up restores the terminal.
            let signals = FullScreenShell.receiveSignals()
            enum Opening: Sendable {
                case opened(Result<(CoreConnection.Link, Welcome<AppState>), CommandFailure>)
                case stopped(Int32)
            }
            let opening = await race([
                { @Sendable () async -> Opening in
                    do throws(CommandFailure) {
                        return .opened(.success(try await open(options)))
                    } catch {
                        return .opened(.failure(error))
                    }
                },
                { @Sendable () async -> Opening in .stopped(await signals.stops.receive() ?? SIGTERM) },
            ])
            switch opening {
            case let .opened(.success((link, _))):
                return try await FullScreenShell(link: link, socket: path, signals: signals.all).run()
            case let .opened(.failure(failure)):
                throw failure
            case let .stopped(signal):
                await StandardStreams.err("\(ShellCommand.program): stopped by \(Signals.name(signal)) before attaching\n")
                return .success
            }
        }
        let (link, welcome) = try await open(options)
        await StandardStreams.out("attached to \(path) (core \(welcome.pid), \(welcome.shells) shell\(welcome.shells == 1 ? "" : "s")); type 'help' for commands, 'quit' to leave\n")
        let shell = LineShell(link: link, input: LineReader.lines())
        return try await shell.run()
    }

    private static func open(_ options: GlobalOptions) async throws(CommandFailure) -> (CoreConnection.Link, Welcome<AppState>) {
        try await CoreConnection.open(
            options, role: .shell, name: "shell-client attach", reconnectFor: options.timeoutOption ?? .seconds(60))
    }
}
