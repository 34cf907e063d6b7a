/// A value that can describe its own change as a JSON Patch: the operations that take the JSON
/// of `old` to the JSON of `self`, found by comparing typed values with `==` and encoding only
/// the parts that changed. The core uses it to tell shells what an action changed without
/// encoding the whole state on every action.
///
/// Any `Encodable & Equatable` type conforms with no code (`extension MyState: Diffable {}`):
/// when it changed, it is replaced whole. Structs get finer patches by diffing each stored
/// property with ``JSONPatch/appendField(_:_:_:at:)``; arrays of `Identifiable` elements are
/// diffed element by element. The JSON keys used must be the type's coding keys; a test that
/// applies random patches to the encoded old value and compares with the encoded new value
/// keeps them honest.
public protocol Diffable: Encodable, Equatable {
    /// Appends to `patch` the operations that take `old` to `self`, for this value at `path`.
    func appendPatch(from old: Self, at path: JSONPointer, to patch: inout JSONPatch) throws
}

extension Diffable {
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

    /// The patch that takes `old` to `self` (the whole value at the root).
    public func patch(from old: Self) throws -> JSONPatch {
        var patch = JSONPatch()
        try appendPatch(from: old, at: JSONPointer(), to: &patch)
        return patch
    }
}

extension Int: Diffable {}
extension Int64: Diffable {}
extension UInt64: Diffable {}
extension Double: Diffable {}
extension Bool: Diffable {}
extension String: Diffable {}

extension Optional: Diffable where Wrapped: Diffable {}

extension Array: Diffable where Element: Diffable & Identifiable {
    /// Elements are matched by position after trimming what did not change; an element that
    /// kept its id is patched in place, any other is replaced (see ``ArrayDiff``).
    public func appendPatch(from old: [Element], at path: JSONPointer, to patch: inout JSONPatch) throws {
        try ArrayDiff.appendPatch(
            from: old, to: self, at: path, into: &patch,
            diffElement: { old, new, path, patch in
                if old.id == new.id {
                    try new.appendPatch(from: old, at: path, to: &patch)
                } else {
                    patch.append(.replace(path, try JSONValue(encoding: new)))
                }
            },
            encode: { try JSONValue(encoding: $0) })
    }
}

extension Dictionary: Diffable where Key == String, Value: Diffable {
    /// Keys are compared one by one: a key that came is an `add`, one that went a `remove`, and
    /// a value that changed is patched in place.
    public func appendPatch(from old: [String: Value], at path: JSONPointer, to patch: inout JSONPatch) throws {
        for key in old.keys.sorted() where self[key] == nil {
            patch.append(.remove(path.appending(key)))
        }
        for key in keys.sorted() {
            let value = self[key]!
            if let previous = old[key] {
                try value.appendPatch(from: previous, at: path.appending(key), to: &patch)
            } else {
                patch.append(.add(path.appending(key), try JSONValue(encoding: value)))
            }
        }
    }
}

extension JSONPatch {
    /// Appends the change of one stored property, `key` being its JSON key. (Inlinable, so that
    /// the property's own diff is compiled for its type where the app calls this.)
    @inlinable
    public mutating func appendField<Value: Diffable>(_ key: String, _ old: Value, _ new: Value, at path: JSONPointer) throws {
        try new.appendPatch(from: old, at: path.appending(key), to: &self)
    }
}
