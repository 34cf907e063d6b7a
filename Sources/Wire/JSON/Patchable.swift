/// A value a shell keeps up to date from the core's patches in place, at the cost of what
/// changed: the other side of ``Diffable``. A shell keeps the state's JSON, patched in place;
/// a `Patchable` state is brought along with it without decoding the whole state again.
///
/// By default (`extension MyType: Patchable {}`) a value is decoded again from its own JSON,
/// after the patch: right for small values. A value holding a long list routes a change to
/// the member it is in (``patchMember(_:_:at:operation:document:)``, then
/// ``decoded(from:)`` for the rest), and a list
/// (``ChunkedArray``, `Array`) changes only the element concerned, or inserts or removes it.
public protocol Patchable: Decodable {
    /// Brings this value up to date after a patch operation changed it or something in it.
    /// - Parameters:
    ///   - path: the pointer's tokens below this value (empty: this value itself).
    ///   - operation: what the operation did there (`add`, `remove` or `replace`).
    ///   - document: this value's JSON, as the patch left it (nil where it was removed).
    mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws
}

extension Patchable {
    /// Decoded again from its JSON, as the patch left it.
    public mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws {
        self = try Self.decoded(from: document)
    }

    /// Routes a change below this value to the member it is in, when `path` starts with `key`.
    /// - Parameters:
    ///   - key: the member's JSON key (its coding key).
    ///   - member: the member.
    ///   - path: the pointer's tokens below this value.
    ///   - operation: what the operation did.
    ///   - document: this value's JSON, as the patch left it.
    /// - Returns: whether the change was in that member (and so was handled).
    public static func patchMember<Member: Patchable>(
        _ key: String, _ member: inout Member, at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?
    ) throws -> Bool {
        guard path.count > 1, path.first == key, case let .object(members)? = document else { return false }
        try member.patch(at: path.dropFirst(), operation: operation, document: members[key])
        return true
    }

    /// This type decoded from `document`; a value the patch removed (nil) fails.
    /// - Parameter document: the JSON.
    public static func decoded(from document: JSONValue?) throws -> Self {
        guard let document else { throw PatchableFailure("a value the patch removed cannot be decoded") }
        return try document.decode(as: Self.self)
    }
}

/// Why a typed value could not follow a patch; the shell decodes the whole state instead.
package struct PatchableFailure: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Int: Patchable {}
extension Int64: Patchable {}
extension UInt64: Patchable {}
extension Double: Patchable {}
extension Bool: Patchable {}
extension String: Patchable {}
extension Optional: Patchable where Wrapped: Patchable {}

/// A list's element changed, added or removed: what that means for the list.
enum ListChange {
    case element(index: Int, rest: ArraySlice<String>)
    case insert(index: Int)
    case remove(index: Int)
    case whole

    /// The change an operation at `path` below a list of `count` elements makes.
    init(path: ArraySlice<String>, operation: JSONPatchOperation.Kind, count: Int) {
        guard let token = path.first else {
            self = .whole
            return
        }
        if token == "-", path.count == 1, operation == .add {
            self = .insert(index: count)
            return
        }
        guard let index = Int(token), index >= 0, String(index) == token else {
            self = .whole
            return
        }
        switch (path.count, operation) {
        case (1, .add) where index <= count: self = .insert(index: index)
        case (1, .remove) where index < count: self = .remove(index: index)
        case (1, .replace) where index < count: self = .element(index: index, rest: [])
        case (2..., _) where index < count: self = .element(index: index, rest: path.dropFirst())
        default: self = .whole
        }
    }
}

extension Array: Patchable where Element: Patchable {
    /// The element concerned changes, is inserted or is removed; anything else decodes the
    /// list again.
    public mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws {
        try patchList(&self, at: path, operation: operation, document: document)
    }
}

extension ChunkedArray: Patchable where Element: Patchable {
    /// The element concerned changes, is inserted or is removed, touching one chunk; anything
    /// else decodes the list again.
    public mutating func patch(at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?) throws {
        try patchList(&self, at: path, operation: operation, document: document)
    }
}

/// A list follows a change: the element concerned changes, is inserted or is removed (each a
/// one-element `replaceSubrange`, so a ``ChunkedArray`` touches one chunk); anything else
/// decodes the list again. Its length must then be the JSON's.
private func patchList<List: RangeReplaceableCollection & MutableCollection & Patchable>(
    _ list: inout List, at path: ArraySlice<String>, operation: JSONPatchOperation.Kind, document: JSONValue?
) throws where List.Index == Int, List.Element: Patchable {
    guard case let .array(elements)? = document else {
        list = try List.decoded(from: document)
        return
    }
    switch ListChange(path: path, operation: operation, count: list.count) {
    case let .element(index, rest) where index < elements.count:
        try list[index].patch(at: rest, operation: rest.isEmpty ? .replace : operation, document: elements[index])
    case let .insert(index) where index < elements.count:
        list.replaceSubrange(index ..< index, with: CollectionOfOne(try List.Element.decoded(from: elements[index])))
    case let .remove(index):
        list.replaceSubrange(index ..< index + 1, with: EmptyCollection())
    default:
        list = try List.decoded(from: document)
    }
    guard list.count == elements.count else { throw PatchableFailure("the list has \(list.count) elements where the JSON has \(elements.count)") }
}

extension JSONPatch {
    /// Whether a typed value can follow this patch operation by operation, reading values from
    /// the document as the whole patch left it: no `move`, `copy` or `test`, at most one
    /// operation that adds or removes, and no operation before it under the same parent (whose
    /// indices it shifts). Any other patch makes the shell decode the whole state again.
    package var isFollowableInPlace: Bool {
        var structural: JSONPointer?
        for (position, operation) in enumerated() {
            switch operation.op {
            case .move, .copy, .test:
                return false
            case .add, .remove:
                guard structural == nil else { return false }
                structural = operation.path
                let parent = operation.path.tokens.dropLast()
                for earlier in self[..<position] where earlier.path.tokens.starts(with: parent) {
                    return false
                }
            case .replace:
                break
            }
        }
        return true
    }
}
