import Wire

/// `watch [--json] [--count N]`: the state now, then after every change. A watcher slower than
/// the core skips to the newest state.
enum WatchCommand<App: ShellApp> {
    static func run(json: Bool, count: Int?, options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, _) = try await CoreConnection<App>.open(options, role: .watcher, name: "\(App.program) watch", reconnectFor: options.timeout)
        var printed = 0
        var previous: App.State?
        for await event in link.events {
            switch event {
            case let .state(revision, state):
                let text = json ? StateJSON.line(state, revision: revision) : App.renderChange(from: previous, to: state, revision: revision)
                previous = state
                // A reader that went away (the pipe closed) ends the watch quietly.
                guard await StandardStreams.out(text) else {
                    await link.close()
                    return .success
                }
                printed += 1
                if let count, printed >= count {
                    await link.close()
                    return .success
                }
            case let .notice(text):
                if json {
                    await StandardStreams.err("\(App.program): notice: \(PeerText.escaped(text))\n")
                } else {
                    await StandardStreams.out("notice: \(PeerText.escaped(text))\n")
                }
            case .presence:
                break
            case let .reconnecting(reason):
                await StandardStreams.err("\(App.program): \(reason); reconnecting\n")
            case let .reconnected(revision):
                await StandardStreams.err("\(App.program): reconnected to the core at revision \(revision)\n")
            case .ended(nil):
                return .success
            case let .ended(error?):
                if case .goodbye = error {
                    await StandardStreams.err("\(App.program): \(error)\n")
                    return .success
                }
                throw CoreConnection<App>.failure(error)
            }
        }
        return .success
    }
}
