import ActorNode
import Wire

/// `shell-client attach` in line mode: type verbs, see the list after every change made by
/// anyone. For pipes and terminals alike; the full-screen interface comes later.
enum AttachCommand {
    static func run(options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, welcome) = try await CoreConnection.open(
            options, role: .shell, name: "shell-client attach", reconnectFor: options.timeoutOption ?? .seconds(60))
        let path = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
        await StandardStreams.out("attached to \(path) (core \(welcome.pid), \(welcome.shells) shell\(welcome.shells == 1 ? "" : "s")); type 'help' for commands, 'quit' to leave\n")
        let shell = LineShell(link: link, input: LineReader.lines())
        return try await shell.run()
    }
}
