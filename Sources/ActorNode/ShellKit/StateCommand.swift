import Wire

/// `state [--json]`: the state as the core has it now.
enum StateCommand<App: ShellApp> {
    static func run(json: Bool, options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let (link, welcome) = try await CoreConnection<App>.open(options, role: .script, name: "\(App.program) state")
        await link.close()
        await StandardStreams.out(json
            ? StateJSON.line(welcome.snapshot, revision: welcome.revision)
            : App.render(welcome.snapshot, revision: welcome.revision))
        return .success
    }
}

/// The state as one line of JSON, for programs: the app's state object with `"revision"` added
/// at its top level, `{"revision":7,"notes":{...}}`.
enum StateJSON {
    static func line(_ state: some Encodable, revision: UInt64) -> String {
        line((try? JSONValue(encoding: state)) ?? .null, revision: revision)
    }

    /// The same line from the state's JSON, without a typed state.
    static func line(_ json: JSONValue, revision: UInt64) -> String {
        guard case var .object(members) = json else {
            return "{\"revision\":\(revision)}\n"
        }
        members["revision"] = .integer(Int64(revision))
        return ((try? WireJSON.string(JSONValue.object(members))) ?? "{}") + "\n"
    }
}
