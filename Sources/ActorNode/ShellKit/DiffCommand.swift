import Wire

/// `diff REV1 REV2 [--json]`: what changed between two revisions the core's state directory
/// holds, from the states it replays for each: one line per changed path, or `--json`, one
/// line `{"from":REV1,"patch":[...],"to":REV2}` whose RFC 6902 patch turns the first state's
/// JSON into the second's.
enum DiffCommand<App: ShellApp> {
    /// Returns what to print.
    static func run(from: UInt64, to: UInt64, json: Bool, options: ShellOptions) throws(CommandFailure) -> [UInt8] {
        let client = try LookBackQuery<App>.open(options, command: "diff")
        defer { client.close() }
        let before = try LookBackQuery<App>.state(at: from, on: client, id: 1, options: options)
        let after = try LookBackQuery<App>.state(at: to, on: client, id: 2, options: options)
        let patch = JSONValue.diff(from: before.json, to: after.json)
        if json {
            let line = JSONValue.object(["from": .integer(Int64(truncatingIfNeeded: from)), "to": .integer(Int64(truncatingIfNeeded: to)), "patch": .array(patch.map(\.json))])
            return ((try? JSONSerializer.serialize(line)) ?? []) + [UInt8(ascii: "\n")]
        }
        return Array(DiffLines.lines(patch, before: before.json, from: from, to: to).utf8)
    }
}

/// `diff`'s readable form of a patch (not generic: it needs no app).
enum DiffLines {

    /// One line per change: `replace /items/0/done: false -> true`, `add /items/3: {...}`,
    /// `remove /items/1 (was {...})`, `move /items/0 -> /items/2`; or a line saying nothing
    /// changed. (The old value of a replace is the first state's, at that path.)
    /// - Parameters:
    ///   - patch: the patch from the first state to the second.
    ///   - before: the first state's JSON.
    ///   - from: the first revision.
    ///   - to: the second revision.
    static func lines(_ patch: JSONPatch, before: JSONValue, from: UInt64, to: UInt64) -> String {
        guard !patch.isEmpty else { return "no change from revision \(from) to \(to)\n" }
        return patch.map { operation in
            let path = operation.path.tokens.isEmpty ? "(the whole state)" : PeerText.escaped(operation.path.description)
            let old = before.value(at: operation.path).map(text)
            let new = operation.value.map(text)
            switch operation.op {
            case .add: return "add \(path): \(new ?? "null")\n"
            case .remove: return "remove \(path)\(old.map { " (was \($0))" } ?? "")\n"
            case .move, .copy:
                let from = operation.from.map { PeerText.escaped($0.description) } ?? "?"
                return "\(operation.op.rawValue) \(from) -> \(path)\n"
            case .replace, .test: return "\(operation.op.rawValue) \(path): \(old ?? "nothing") -> \(new ?? "nothing")\n"
            }
        }.joined()
    }

    private static func text(_ value: JSONValue) -> String {
        PeerText.escaped(String(decoding: (try? JSONSerializer.serialize(value)) ?? [], as: UTF8.self))
    }
}
