/// The diff every ``Diffable`` type gets without writing one: its members are found by its own
/// `encode(to:)` (``FieldCapture``), so the keys of the patch are the keys the encoder writes,
/// always. Members are compared one by one and only what changed is encoded:
///
/// - a member in both, changed: patched in place if it is ``Diffable`` (its own diff: an
///   `Identifiable` array element by element, a ``ChunkedArray`` chunk by chunk), or if it is a
///   struct (member by member, the same way); otherwise replaced;
/// - a member that came (an optional that was nil, which the encoder leaves out): `add`;
/// - a member that went (an optional that became nil): `remove`.
///
/// A value that is not a plain struct (a single value, an array, an enum with associated
/// values, a custom encoding with nested containers) is compared whole (with `==` where it is
/// `Equatable`, else by its JSON) and replaced when it changed.
@usableFromInline
enum FieldDiff {
    /// Appends the operations that take the JSON of `old` to the JSON of `new`, at `path`.
    /// - Parameter comparingFirst: whether to ask the value's `==` before looking into its
    ///   members; not for a whole state, which an action has almost always changed (its `==`
    ///   would compare every member, which its members' own comparisons then do again).
    @usableFromInline
    static func appendPatch<Value: Encodable>(
        from old: Value, to new: Value, at path: JSONPointer, into patch: inout JSONPatch, comparingFirst: Bool = true
    ) throws {
        // An unchanged value needs no look inside (by its `==` where it has one, as for a value
        // compared whole): most members of a state are unchanged by an action, and capturing
        // one's fields on both sides cost more than comparing it (callgrind: the reference
        // app's patch for an action that changes one small member, 86,000 -> 59,000
        // instructions, the members it leaves alone no longer looked into).
        let equatable = new as? any Equatable
        if comparingFirst, let equatable, equal(equatable, old) { return }
        let newFields = FieldCapture.capture(new)
        if newFields.shape == .members {
            let oldFields = FieldCapture.capture(old)
            if oldFields.shape == .members {
                try appendMembers(from: oldFields.fields, to: newFields.fields, at: path, into: &patch)
                return
            }
        }
        // Compared whole (already known to differ where the type has `==` and was asked).
        let changed = if let equatable { comparingFirst || !equal(equatable, old) } else { try JSONValue(encoding: old) != JSONValue(encoding: new) }
        if changed {
            patch.append(.replace(path, try JSONValue(encoding: new)))
        }
    }

    /// Appends the operations that take the JSON of a whole state `old` to that of `new`: its
    /// own diff if its type is ``Diffable``, else member by member, each member compared
    /// before it is looked into but not the state itself.
    static func appendStateChange<Value: Encodable>(from old: Value, to new: Value, into patch: inout JSONPatch) throws {
        if let diffable = new as? any Diffable {
            try appendDiffable(from: old, to: diffable, at: JSONPointer(), into: &patch)
        } else {
            try appendPatch(from: old, to: new, at: JSONPointer(), into: &patch, comparingFirst: false)
        }
    }

    /// The members of an object, before and after.
    private static func appendMembers(
        from old: [FieldCapture.Member], to new: [FieldCapture.Member],
        at path: JSONPointer, into patch: inout JSONPatch
    ) throws {
        // The same keys in the same order, as a struct writes them: paired as they stand (by
        // index: `zip` has the runtime make its generic types at every call).
        if old.count == new.count, old.indices.allSatisfy({ old[$0].key == new[$0].key }) {
            for index in new.indices {
                try appendField(from: old[index].value, to: new[index].value, at: path.appending(new[index].key), into: &patch)
            }
            return
        }
        var before: [String: FieldCapture.Field] = [:]
        for member in old { before[member.key] = member.value }
        var seen = Set<String>()
        for member in new where seen.insert(member.key).inserted {
            if let previous = before[member.key] {
                try appendField(from: previous, to: member.value, at: path.appending(member.key), into: &patch)
            } else {
                patch.append(.add(path.appending(member.key), try json(member.value)))
            }
        }
        for member in old where !seen.contains(member.key) {
            seen.insert(member.key)
            patch.append(.remove(path.appending(member.key)))
        }
    }

    /// One member, before and after.
    private static func appendField(from old: FieldCapture.Field, to new: FieldCapture.Field, at path: JSONPointer, into patch: inout JSONPatch) throws {
        switch (old, new) {
        case (.null, .null):
            return
        case let (.bool(a), .bool(b)) where a == b:
            return
        case let (.string(a), .string(b)) where a == b:
            return
        case let (.integer(a), .integer(b)) where a == b:
            return
        case let (.unsigned(a), .unsigned(b)) where a == b:
            return
        case let (.double(a), .double(b)) where a == b:
            return
        case let (.float(a), .float(b)) where a == b:
            return
        case let (.value(a), .value(b)):
            try appendValue(from: a, to: b, at: path, into: &patch)
        default:
            patch.append(.replace(path, try json(new)))
        }
    }

    /// A member holding a value of its own: its type's diff.
    private static func appendValue<Value: Encodable>(from old: any Encodable, to new: Value, at path: JSONPointer, into patch: inout JSONPatch) throws {
        guard let old = old as? Value else {
            patch.append(.replace(path, try JSONValue(encoding: new)))
            return
        }
        try appendChange(from: old, to: new, at: path, into: &patch)
    }

    /// The change of any value: its own diff if its type is ``Diffable``, else member by member
    /// (or whole).
    @usableFromInline
    static func appendChange<Value: Encodable>(from old: Value, to new: Value, at path: JSONPointer, into patch: inout JSONPatch) throws {
        if let diffable = new as? any Diffable {
            try appendDiffable(from: old, to: diffable, at: path, into: &patch)
        } else {
            try appendPatch(from: old, to: new, at: path, into: &patch)
        }
    }

    private static func appendDiffable<Value: Diffable>(from old: Any, to new: Value, at path: JSONPointer, into patch: inout JSONPatch) throws {
        // `old` is of the same type: the callers' types say so.
        guard let old = old as? Value else { return patch.append(.replace(path, try JSONValue(encoding: new))) }
        try new.appendPatch(from: old, at: path, to: &patch)
    }

    private static func equal<Value: Equatable>(_ new: Value, _ old: Any) -> Bool {
        (old as? Value) == new
    }

    /// A member's JSON.
    private static func json(_ field: FieldCapture.Field) throws -> JSONValue {
        switch field {
        case .null: .null
        case let .bool(value): .bool(value)
        case let .string(value): .string(value)
        case let .integer(value): .integer(value)
        case let .unsigned(value): try JSONValue(encoding: value)
        case let .double(value): try JSONValue(encoding: value)
        case let .float(value): try JSONValue(encoding: value)
        case let .value(value): try JSONValue(encoding: value)
        }
    }
}
