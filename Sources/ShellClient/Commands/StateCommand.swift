import ActorNode
import Wire

/// `shell-client state [--json]`: the state as the core has it now.
enum StateCommand {
    static func run(json: Bool, options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, welcome) = try await CoreConnection.open(options, role: .script, name: "shell-client state")
        await link.close()
        await StandardStreams.out(json
            ? StateText.json(welcome.snapshot, revision: welcome.revision)
            : StateText.render(welcome.snapshot, revision: welcome.revision))
        return .success
    }
}
