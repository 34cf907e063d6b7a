import Wire

/// Writes `watch --json`'s lines (``StateJSON/bytes(_:revision:)``) from a state's JSON that
/// patches keep changing, keeping the text of each top-level member until a patch touches it:
/// a change to one small member does not write a big one again. The bytes are exactly
/// ``StateJSON``'s.
struct StateLineWriter {
    /// The text of top-level members no patch has touched since it was written.
    private var memberText: [String: [UInt8]] = [:]
    /// The top-level keys with `"revision"`, in the order they are written (by UTF-8 bytes),
    /// each with its text; nil when a patch may have added or removed one.
    private var order: [(key: String, text: [UInt8])]?

    /// Forgets what `patch` may have changed.
    /// - Parameter patch: a patch applied to the document.
    mutating func changed(by patch: JSONPatch) {
        for operation in patch {
            for pointer in [operation.path, operation.from].compactMap({ $0 }) {
                guard let member = pointer.tokens.first else {
                    forgetAll()
                    return
                }
                memberText[member] = nil
                // A member added or removed at the top level changes the order.
                if pointer.tokens.count == 1 { order = nil }
            }
        }
    }

    /// Forgets everything (a new document).
    mutating func forgetAll() {
        memberText.removeAll(keepingCapacity: true)
        order = nil
    }

    /// The line for `document` at `revision`.
    /// - Parameters:
    ///   - document: the state's JSON, as patched since the last call.
    ///   - revision: its revision.
    mutating func line(_ document: JSONValue, revision: UInt64) -> [UInt8] {
        guard case let .object(members) = document else { return StateJSON.bytes(document, revision: revision) }
        let keys: [(key: String, text: [UInt8])]
        if let order {
            keys = order
        } else {
            keys = Set(members.keys).union(["revision"]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, JSONFragment.string($0)) }
            order = keys
        }
        var line: [UInt8] = [UInt8(ascii: "{")]
        for (index, (key, keyText)) in keys.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line += keyText
            line.append(UInt8(ascii: ":"))
            if key == "revision" {
                line += String(revision).utf8
            } else if let text = memberText[key] {
                line += text
            } else {
                guard let value = members[key], let text = try? JSONSerializer.serialize(value) else {
                    // Not what was expected (a NaN, a key gone): the general writer decides.
                    forgetAll()
                    return StateJSON.bytes(document, revision: revision)
                }
                memberText[key] = text
                line += text
            }
        }
        line += "}\n".utf8
        return line
    }
}
