import Wire

/// `watch [--json | --patches] [--count N]`: the state now, then after every change.
///
/// As text or `--json` (the whole state on each line), a watcher slower than the core skips to
/// the newest state, so it never holds the core back. `--patches` prints what each change did,
/// a JSON Patch a line, for scripts that follow a big state: the first line (and the one after
/// a reconnection, or after the watcher fell far behind) replaces the whole document.
enum WatchCommand<App: ShellApp> {
    static func run(format: WatchFormat, count: Int?, options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let delivery: StateDelivery = switch format {
        case .text: .typed
        case .json: .json
        case .patches: .patches
        }
        let (link, _) = try await CoreConnection<App>.open(
            options, role: .watcher, name: "\(App.program) watch", reconnectFor: options.timeout, delivery: delivery)
        var printed = 0
        var previous: App.State?
        for await event in link.events {
            let line: String
            switch event {
            case let .state(revision, state):
                line = App.renderChange(from: previous, to: state, revision: revision)
                previous = state
            case let .document(revision, json):
                line = StateJSON.line(json, revision: revision)
            case let .patch(revision, patch):
                line = PatchLine.line(patch, revision: revision)
            case let .notice(text):
                if format == .text {
                    await StandardStreams.out("notice: \(PeerText.escaped(text))\n")
                } else {
                    await StandardStreams.err("\(App.program): notice: \(PeerText.escaped(text))\n")
                }
                continue
            case .presence:
                continue
            case let .reconnecting(reason):
                await StandardStreams.err("\(App.program): \(reason); reconnecting\n")
                continue
            case let .reconnected(revision):
                await StandardStreams.err("\(App.program): reconnected to the core at revision \(revision)\n")
                continue
            case .ended(nil):
                return .success
            case let .ended(error?):
                if case .goodbye = error {
                    await StandardStreams.err("\(App.program): \(error)\n")
                    return .success
                }
                throw CoreConnection<App>.failure(error)
            }
            // A change the app prints nothing for is not counted: --count counts lines.
            if line.isEmpty { continue }
            // A reader that went away (the pipe closed) ends the watch quietly.
            guard await StandardStreams.out(line) else {
                await link.close()
                return .success
            }
            printed += 1
            if let count, printed >= count {
                await link.close()
                return .success
            }
        }
        return .success
    }
}

/// One line of `watch --patches`: `{"patch":[...],"revision":R}`.
enum PatchLine {
    static func line(_ patch: JSONPatch, revision: UInt64) -> String {
        var members: [String: JSONValue] = ["revision": .integer(Int64(revision))]
        members["patch"] = (try? JSONValue(encoding: patch)) ?? .array([])
        return ((try? WireJSON.string(JSONValue.object(members))) ?? "{}") + "\n"
    }
}
