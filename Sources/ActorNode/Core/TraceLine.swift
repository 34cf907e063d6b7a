import Wire

/// The lines `--trace` logs: each action, where it came from, and what it changed, with old
/// and new values.
///
///     trace r7 from client 3f2a… {"toggle":{"id":1}}
///       ~ /notes/items/0/done: false -> true
enum TraceLine {
    static func applied<State: Encodable, Action: Encodable>(
        action: Action, origin: ActionOrigin, revision: UInt64, previous: State?, state: State
    ) -> String {
        var text = "trace r\(revision) from \(PeerText.forLog(origin.description)): \(json(action))"
        guard let previous, let patch = try? JSONPatch(from: previous, to: state) else { return text }
        if patch.isEmpty {
            text += "\n  (no change)"
        }
        // The old values are those of the patch back (never the whole old state's JSON: that
        // would make every traced action cost as much as the state is big).
        var old: [String: JSONValue] = [:]
        for operation in (try? JSONPatch(from: state, to: previous)) ?? [] {
            if let value = operation.value { old[operation.path.description] = value }
        }
        for operation in patch {
            text += "\n  " + describe(operation, old: old[operation.path.description])
        }
        return text
    }

    /// An action sent again (after a lost connection) that was applied before: acknowledged
    /// again with its first revision, not applied twice.
    static func duplicate<Action: Encodable>(action: Action, origin: ActionOrigin, revision: UInt64) -> String {
        "trace duplicate from \(PeerText.forLog(origin.description)): \(json(action)): already applied at r\(revision); acknowledged again"
    }

    static func rejected<Action: Encodable>(action: Action, origin: ActionOrigin, rejection: Rejection) -> String {
        "trace rejected from \(PeerText.forLog(origin.description)): \(json(action)): \(PeerText.forLog(rejection.message)) (\(PeerText.forLog(rejection.code)))"
    }

    private static func describe(_ operation: JSONPatchOperation, old: JSONValue?) -> String {
        let value = operation.value.map(json) ?? ""
        switch operation.op {
        case .add: return "+ \(operation.path): \(value)"
        case .remove: return "- \(operation.path): \(old.map(json) ?? "?")"
        case .replace: return "~ \(operation.path): \(old.map(json) ?? "?") -> \(value)"
        case .move: return "> \(operation.from.map(\.description) ?? "?") -> \(operation.path)"
        case .copy: return "= \(operation.from.map(\.description) ?? "?") -> \(operation.path)"
        case .test: return "? \(operation.path): \(value)"
        }
    }

    /// A value's JSON, escaped and cut to 300 bytes: a line of the log, however big the value.
    private static func json(_ value: some Encodable) -> String {
        PeerText.forLog((try? WireJSON.string(value)) ?? "?", limit: 300)
    }
}
