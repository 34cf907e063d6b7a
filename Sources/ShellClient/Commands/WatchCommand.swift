import ActorNode
import Wire

/// `shell-client watch [--json] [--count N]`: the state now, then after every change.
enum WatchCommand {
    static func run(json: Bool, count: Int?, options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, _) = try await CoreConnection.open(options, role: .watcher, name: "shell-client watch", reconnectFor: options.timeout)
        var printed = 0
        for await event in link.events {
            switch event {
            case let .state(revision, state):
                await StandardStreams.out(json ? StateText.json(state, revision: revision) : StateText.render(state, revision: revision) + "\n")
                printed += 1
                if let count, printed >= count {
                    await link.close()
                    return .success
                }
            case let .notice(text):
                if json {
                    await StandardStreams.err("shell-client: notice: \(PeerText.escaped(text))\n")
                } else {
                    await StandardStreams.out("notice: \(PeerText.escaped(text))\n")
                }
            case .presence:
                break
            case let .reconnecting(reason):
                await StandardStreams.err("shell-client: \(reason); reconnecting\n")
            case let .reconnected(revision):
                await StandardStreams.err("shell-client: reconnected to the core at revision \(revision)\n")
            case .ended(nil):
                return .success
            case let .ended(error?):
                if case .goodbye = error {
                    await StandardStreams.err("shell-client: \(error)\n")
                    return .success
                }
                throw CoreConnection.failure(error)
            }
        }
        return .success
    }
}
