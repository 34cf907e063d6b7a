import ActorNode
import Wire

/// `shell-client attach`: the full-screen interface when stdin and stdout are terminals, else
/// line mode (type verbs, see the state after every change made by anyone), so pipes and
/// scripts keep working.
enum AttachCommand {
    static func run(options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, welcome) = try await CoreConnection.open(
            options, role: .shell, name: "shell-client attach", reconnectFor: options.timeoutOption ?? .seconds(60))
        let path = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
        if StandardStreams.isTerminal(0), StandardStreams.isTerminal(1) {
            return try await FullScreenShell(link: link, socket: path).run()
        }
        await StandardStreams.out("attached to \(path) (core \(welcome.pid), \(welcome.shells) shell\(welcome.shells == 1 ? "" : "s")); type 'help' for commands, 'quit' to leave\n")
        let shell = LineShell(link: link, input: LineReader.lines())
        return try await shell.run()
    }
}
