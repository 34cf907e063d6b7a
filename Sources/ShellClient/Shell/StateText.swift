import Wire

/// How the state is shown: as text for people, as one JSON object per line for programs.
enum StateText {
    /// A header line and one line per item:
    ///
    ///     revision 3: 2 items, 1 done
    ///       1 [ ] buy milk
    ///       2 [x] call mom
    static func render(_ state: AppState, revision: UInt64) -> String {
        let items = state.todo.items
        let done = items.filter(\.done).count
        var text: String
        switch items.count {
        case 0: text = "revision \(revision): no items\n"
        case 1: text = "revision \(revision): 1 item, \(done) done\n"
        default: text = "revision \(revision): \(items.count) items, \(done) done\n"
        }
        let width = String(items.map(\.id).max() ?? 0).count
        for item in items {
            let id = String(item.id)
            text += "  " + String(repeating: " ", count: width - id.count) + id
            text += item.done ? " [x] " : " [ ] "
            text += item.text + "\n"
        }
        return text
    }

    /// The whole state plus its revision as one line of JSON:
    /// `{"revision":7,"todo":{"items":[...],"nextId":2}}`.
    static func json(_ state: AppState, revision: UInt64) -> String {
        guard case var .object(members) = try? JSONValue(encoding: state) else {
            return "{\"revision\":\(revision)}"
        }
        members["revision"] = .integer(Int64(revision))
        return ((try? WireJSON.string(JSONValue.object(members))) ?? "{}") + "\n"
    }
}
