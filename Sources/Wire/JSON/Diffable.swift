/// A value that can describe its own change as a JSON Patch: the operations that take the JSON
/// of `old` to the JSON of `self`, found by comparing typed values and encoding only the parts
/// that changed. The core uses it to tell shells what an action changed without encoding the
/// whole state on every action.
///
/// Any `Encodable & Equatable` type conforms with no code (`extension MyState: Diffable {}`):
/// its members are found by its own `encode(to:)`, so the patch's keys are always the keys the
/// encoder writes (``FieldDiff``). A member that changed is patched in place (a struct member by
/// member, an array of `Identifiable` elements element by element) or replaced; an optional
/// that became nil is removed and one that became non-nil is added, as the encoder leaves a nil
/// member out. Write ``appendPatch(from:at:to:)`` yourself only for a structure with a faster
/// diff of its own (``ChunkedArray`` has one); ``PatchCheck`` tells whether it is right.
public protocol Diffable: Encodable, Equatable {
    /// Appends to `patch` the operations that take `old` to `self`, for this value at `path`.
    /// - Parameters:
    ///   - old: the value before.
    ///   - path: where the value is in the document.
    ///   - patch: where the operations go.
    func appendPatch(from old: Self, at path: JSONPointer, to patch: inout JSONPatch) throws
}

extension Diffable {
    /// Member by member, as its `encode(to:)` writes them (``FieldDiff``).
    /// - Parameters:
    ///   - old: the value before.
    ///   - path: where the value is in the document.
    ///   - patch: where the operations go.
    public func appendPatch(from old: Self, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try FieldDiff.appendPatch(from: old, to: self, at: path, into: &patch)
    }

    /// The patch that takes `old` to `self` (the whole value at the root).
    /// - Parameter old: the value before.
    public func patch(from old: Self) throws -> JSONPatch {
        var patch = JSONPatch()
        try appendPatch(from: old, at: JSONPointer(), to: &patch)
        return patch
    }
}

/// A ``Diffable`` value whose change is always one `replace` of the whole value: a number, a
/// string, or a small type of the app's that changes as one (an enum, a date), which need not be
/// looked into member by member.
public protocol ReplacedWhole: Diffable {}

extension ReplacedWhole {
    /// The whole value, replaced, when it changed.
    /// - Parameters:
    ///   - old: the value before.
    ///   - path: where the value is in the document.
    ///   - patch: where the operations go.
    public func appendPatch(from old: Self, at path: JSONPointer, to patch: inout JSONPatch) throws {
        if self != old {
            patch.append(.replace(path, try JSONValue(encoding: self)))
        }
    }
}

extension Int: ReplacedWhole {}
extension Int64: ReplacedWhole {}
extension UInt64: ReplacedWhole {}
extension Double: ReplacedWhole {}
extension Bool: ReplacedWhole {}
extension String: ReplacedWhole {}

extension Optional: Diffable where Wrapped: Diffable {
    /// A value patched in place when there is one before and after; else replaced (with
    /// `null`, as the encoder writes nil where it is given one).
    /// - Parameters:
    ///   - old: the value before.
    ///   - path: where the value is in the document.
    ///   - patch: where the operations go.
    public func appendPatch(from old: Wrapped?, at path: JSONPointer, to patch: inout JSONPatch) throws {
        if let new = self, let old {
            try new.appendPatch(from: old, at: path, to: &patch)
        } else if self != old {
            patch.append(.replace(path, try JSONValue(encoding: self)))
        }
    }
}

extension Array: Diffable where Element: Identifiable & Encodable & Equatable {
    /// Elements are matched by position after trimming what did not change; an element that
    /// kept its id is patched in place, any other is replaced (see ``ArrayDiff``).
    /// - Parameters:
    ///   - old: the array before.
    ///   - path: where the array is in the document.
    ///   - patch: where the operations go.
    public func appendPatch(from old: [Element], at path: JSONPointer, to patch: inout JSONPatch) throws {
        try ArrayDiff.appendPatch(
            from: old, to: self, at: path, into: &patch,
            diffElement: { old, new, path, patch in
                if old.id == new.id {
                    try FieldDiff.appendChange(from: old, to: new, at: path, into: &patch)
                } else {
                    patch.append(.replace(path, try JSONValue(encoding: new)))
                }
            },
            encode: { try JSONValue(encoding: $0) })
    }
}

extension Dictionary: Diffable where Key == String, Value: Encodable & Equatable {
    /// Keys are compared one by one: a key that came is an `add`, one that went a `remove`, and
    /// a value that changed is patched in place.
    /// - Parameters:
    ///   - old: the dictionary before.
    ///   - path: where it is in the document.
    ///   - patch: where the operations go.
    public func appendPatch(from old: [String: Value], at path: JSONPointer, to patch: inout JSONPatch) throws {
        for key in old.keys.sorted() where self[key] == nil {
            patch.append(.remove(path.appending(key)))
        }
        for key in keys.sorted() {
            let value = self[key]!
            if let previous = old[key] {
                if previous != value {
                    try FieldDiff.appendChange(from: previous, to: value, at: path.appending(key), into: &patch)
                }
            } else {
                patch.append(.add(path.appending(key), try JSONValue(encoding: value)))
            }
        }
    }
}

extension JSONPatch {
    /// The patch that takes the JSON of `old` to the JSON of `new`: the value's own diff if its
    /// type is ``Diffable``, else member by member as its `encode(to:)` writes them
    /// (``FieldDiff``). What the core sends shells for each change.
    /// - Parameters:
    ///   - old: the value before.
    ///   - new: the value after.
    public init<Value: Encodable>(from old: Value, to new: Value) throws {
        self.init()
        try FieldDiff.appendStateChange(from: old, to: new, into: &self)
    }

    /// Appends the change of one stored property, `key` being its JSON key. (Inlinable, so that
    /// the property's own diff is compiled for its type where the app calls this.)
    /// - Parameters:
    ///   - key: the property's JSON key.
    ///   - old: its value before.
    ///   - new: its value after.
    ///   - path: where the struct holding it is in the document.
    @inlinable
    public mutating func appendField<Value: Diffable>(_ key: String, _ old: Value, _ new: Value, at path: JSONPointer) throws {
        try new.appendPatch(from: old, at: path.appending(key), to: &self)
    }

    /// Appends the change of one stored property of any `Encodable` type: member by member, as
    /// ``FieldDiff`` finds them.
    /// - Parameters:
    ///   - key: the property's JSON key.
    ///   - old: its value before.
    ///   - new: its value after.
    ///   - path: where the struct holding it is in the document.
    public mutating func appendField<Value: Encodable>(_ key: String, _ old: Value, _ new: Value, at path: JSONPointer) throws {
        try FieldDiff.appendChange(from: old, to: new, at: path.appending(key), into: &self)
    }
}
