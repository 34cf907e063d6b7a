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
        guard let previous, let patch = try? diff(previous, state) else { return text }
        if patch.isEmpty {
            text += "\n  (no change)"
        }
        // The old values are those of the patch back (never the whole old state's JSON: that
        // would make every traced action cost as much as the state is big).
        var old: [String: JSONValue] = [:]
        for operation in (try? diff(state, previous)) ?? [] {
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

    private static func diff<State: Encodable>(_ old: State, _ new: State) throws -> JSONPatch {
        if let new = new as? any Diffable {
            return try patch(of: new, from: old)
        }
        return JSONValue.diff(from: try JSONValue(encoding: old), to: try JSONValue(encoding: new))
    }

    private static func patch<D: Diffable>(of new: D, from old: Any) throws -> JSONPatch {
        guard let old = old as? D else { return [] }
        return try new.patch(from: old)
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
