/// One operation of an RFC 6902 JSON Patch, e.g.
/// `{"op":"replace","path":"/notes/items/0/done","value":true}`.
///
/// The core emits `add`, `remove`, `replace` and `move`; ``JSONValue/apply(_:)`` implements all
/// six operations of the RFC so that any standard patch applies.
public struct JSONPatchOperation: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        case add, remove, replace, move, copy, test
    }

    public var op: Kind
    public var path: JSONPointer
    /// The source of `move` and `copy`.
    public var from: JSONPointer?
    /// The value of `add`, `replace` and `test`.
    public var value: JSONValue?

    public init(op: Kind, path: JSONPointer, from: JSONPointer? = nil, value: JSONValue? = nil) {
        self.op = op
        self.path = path
        self.from = from
        self.value = value
    }

    enum CodingKeys: String, CodingKey {
        case op, path, from, value
    }

    /// A `value` of JSON null is a value (`.null`), not a missing one: `replace` with null is how
    /// an optional field becomes empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        op = try container.decode(Kind.self, forKey: .op)
        path = try container.decode(JSONPointer.self, forKey: .path)
        from = try container.decodeIfPresent(JSONPointer.self, forKey: .from)
        value = container.contains(.value) ? try container.decode(JSONValue.self, forKey: .value) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(op, forKey: .op)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(from, forKey: .from)
        if let value { try container.encode(value, forKey: .value) }
    }

    public static func add(_ path: JSONPointer, _ value: JSONValue) -> Self { .init(op: .add, path: path, value: value) }
    public static func remove(_ path: JSONPointer) -> Self { .init(op: .remove, path: path) }
    public static func replace(_ path: JSONPointer, _ value: JSONValue) -> Self { .init(op: .replace, path: path, value: value) }
    public static func move(from: JSONPointer, to path: JSONPointer) -> Self { .init(op: .move, path: path, from: from) }
}

extension JSONPatchOperation {
    /// The operation as JSON, the object its encoding writes.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["op": .string(op.rawValue), "path": .string(path.description)]
        if let from { members["from"] = .string(from.description) }
        if let value { members["value"] = value }
        return .object(members)
    }
}

/// An RFC 6902 JSON Patch: operations applied in order, all or nothing.
public typealias JSONPatch = [JSONPatchOperation]

/// Why a patch did not apply.
public struct JSONPatchError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operationIndex: Int
    public var reason: String

    public var description: String { "patch operation \(operationIndex): \(reason)" }
}

extension JSONValue {
    /// Applies `patch` in order. On failure the value is left as it was (RFC 6902's atomicity),
    /// which costs a copy of every container the patch touches.
    public mutating func apply(_ patch: JSONPatch) throws(JSONPatchError) {
        var result = self
        try result.applyInPlace(patch)
        self = result
    }

    /// Applies `patch` in order without a copy: the cost is that of the operations alone. On
    /// failure the value is left partly patched; use it when a failed patch means starting
    /// over anyway (a shell then resynchronises from a snapshot).
    public mutating func applyInPlace(_ patch: JSONPatch) throws(JSONPatchError) {
        // Each operation is read where it lies: taken out of the array, it was copied whole
        // (a retain and a release of its path, its `from` and its value), some 450
        // instructions a change of a watcher's mirror (callgrind).
        try patch.withUnsafeBufferPointer { operations throws(JSONPatchError) in
            for index in operations.indices {
                do throws(PatchFailure) {
                    try apply(operations.baseAddress! + index)
                } catch {
                    throw JSONPatchError(operationIndex: index, reason: error.reason)
                }
            }
        }
    }

    /// Applies the operation at `place` (in the patch's storage; borrowed, not copied).
    private mutating func apply(_ place: UnsafePointer<JSONPatchOperation>) throws(PatchFailure) {
        let operation = place.pointee
        switch operation.op {
        case .add:
            try add(try operation.requiredValue(), at: operation.path.tokens[...])
        case .remove:
            _ = try remove(at: operation.path.tokens[...])
        case .replace:
            try replace(with: try operation.requiredValue(), at: operation.path.tokens[...])
        case .move:
            let from = try operation.requiredFrom()
            if from == operation.path { return }
            if operation.path.tokens.starts(with: from.tokens) {
                throw PatchFailure("cannot move \(from) into its own child \(operation.path)")
            }
            let moved = try remove(at: from.tokens[...])
            try add(moved, at: operation.path.tokens[...])
        case .copy:
            let copied = try value(at: try operation.requiredFrom().tokens[...])
            try add(copied, at: operation.path.tokens[...])
        case .test:
            guard try value(at: operation.path.tokens[...]) == (try operation.requiredValue()) else {
                throw PatchFailure("test failed at \(operation.path)")
            }
        }
    }

    /// The value a pointer names.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        try? value(at: pointer.tokens[...])
    }

    private func value(at tokens: ArraySlice<String>) throws(PatchFailure) -> JSONValue {
        guard let token = tokens.first else { return self }
        switch self {
        case let .object(members):
            guard let child = members[token] else { throw Self.noMember(token) }
            return try child.value(at: tokens.dropFirst())
        case let .array(elements):
            let index = try Self.existingIndex(token, count: elements.count)
            return try elements[index].value(at: tokens.dropFirst())
        default:
            throw Self.noChildren(token)
        }
    }

    // The containers are taken out of `self` (which is left `.null`) before they are changed,
    // so that they are uniquely referenced and change in place: matching them in a `switch`
    // keeps a second reference alive for the whole switch, and every patch then copied the
    // array or object it went through (a 100,000-element list: milliseconds a patch).

    /// The members, taken out of `self`; nil (and `self` unchanged) if it is not an object.
    private mutating func takeMembers() -> [String: JSONValue]? {
        guard case let .object(members) = self else { return nil }
        self = .null
        return members
    }

    /// The elements, taken out of `self`; nil (and `self` unchanged) if it is not an array.
    private mutating func takeElements() -> [JSONValue]? {
        guard case let .array(elements) = self else { return nil }
        self = .null
        return elements
    }

    private mutating func add(_ newValue: JSONValue, at tokens: ArraySlice<String>) throws(PatchFailure) {
        guard let last = tokens.last else {
            self = newValue
            return
        }
        try withValue(at: tokens.dropLast()) { parent throws(PatchFailure) in
            if var members = parent.takeMembers() {
                defer { parent = .object(members) }
                members[last] = newValue
            } else if var elements = parent.takeElements() {
                defer { parent = .array(elements) }
                elements.insert(newValue, at: last == "-" ? elements.count : try Self.index(last, upTo: elements.count))
            } else {
                throw Self.noChildren(last)
            }
        }
    }

    /// A `replace`: what a `remove` and then an `add` at the same place do (and the same
    /// errors, which only the `remove` can give), the member found by one lookup and changed
    /// in place (the most common operation: a field's new value).
    private mutating func replace(with newValue: JSONValue, at tokens: ArraySlice<String>) throws(PatchFailure) {
        guard let last = tokens.last else {
            self = newValue
            return
        }
        try withValue(at: tokens.dropLast()) { parent throws(PatchFailure) in
            if var members = parent.takeMembers() {
                defer { parent = .object(members) }
                guard let index = members.memberIndex(last) else { throw Self.noMember(last) }
                members.values[index] = newValue
            } else if var elements = parent.takeElements() {
                defer { parent = .array(elements) }
                elements[try Self.existingIndex(last, count: elements.count)] = newValue
            } else {
                throw Self.noChildren(last)
            }
        }
    }

    private mutating func remove(at tokens: ArraySlice<String>) throws(PatchFailure) -> JSONValue {
        guard let last = tokens.last else { throw PatchFailure("cannot remove the whole document") }
        return try withValue(at: tokens.dropLast()) { parent throws(PatchFailure) in
            if var members = parent.takeMembers() {
                defer { parent = .object(members) }
                guard let removed = members.removeValue(forKey: last) else { throw Self.noMember(last) }
                return removed
            } else if var elements = parent.takeElements() {
                defer { parent = .array(elements) }
                return elements.remove(at: try Self.existingIndex(last, count: elements.count))
            } else {
                throw Self.noChildren(last)
            }
        }
    }

    /// Walks down `path`, each member found by one lookup and each container changed in place,
    /// and hands `change` the value there (for `add`, `remove` and `replace`: the container of
    /// the last token). A missing member, an index out of range or a child of a scalar on the
    /// way fails the same for every operation.
    private mutating func withValue<T>(
        at path: ArraySlice<String>, _ change: (inout JSONValue) throws(PatchFailure) -> T
    ) throws(PatchFailure) -> T {
        guard let token = path.first else { return try change(&self) }
        if var members = takeMembers() {
            defer { self = .object(members) }
            guard let index = members.memberIndex(token) else { throw Self.noMember(token) }
            return try members.values[index].withValue(at: path.dropFirst(), change)
        } else if var elements = takeElements() {
            defer { self = .array(elements) }
            return try elements[try Self.existingIndex(token, count: elements.count)].withValue(at: path.dropFirst(), change)
        } else {
            throw Self.noChildren(token)
        }
    }

    private static func noMember(_ token: String) -> PatchFailure {
        PatchFailure("no member '\(token)'")
    }

    private static func noChildren(_ token: String) -> PatchFailure {
        PatchFailure("'\(token)' names a child of a value that has none")
    }

    /// An array index token (`0`, `12`; no leading zeros, no sign) in `0...limit`.
    private static func index(_ token: String, upTo limit: Int) throws(PatchFailure) -> Int {
        let isCanonical = token == "0" || (token.first != "0" && !token.isEmpty && token.allSatisfy(\.isASCIIDigit))
        guard isCanonical, let index = Int(token), index <= limit else {
            throw PatchFailure("'\(token)' is not an index in 0...\(limit)")
        }
        return index
    }

    private static func existingIndex(_ token: String, count: Int) throws(PatchFailure) -> Int {
        guard count > 0 else { throw PatchFailure("index '\(token)' in an empty array") }
        let index = try index(token, upTo: count - 1)
        return index
    }
}

/// The reason one operation failed; wrapped into ``JSONPatchError`` with its position.
private struct PatchFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension JSONPatchOperation {
    // Always inlined: called, they copied the whole operation (its pointers and its value)
    // to pass it, some 230 instructions a `replace` (callgrind, a watcher's patch).
    @inline(__always) fileprivate func requiredValue() throws(PatchFailure) -> JSONValue {
        guard let value else { throw PatchFailure("'\(op.rawValue)' needs a value") }
        return value
    }

    @inline(__always) fileprivate func requiredFrom() throws(PatchFailure) -> JSONPointer {
        guard let from else { throw PatchFailure("'\(op.rawValue)' needs 'from'") }
        return from
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
