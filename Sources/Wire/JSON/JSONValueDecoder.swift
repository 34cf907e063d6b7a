/// Reads any `Decodable` value out of a ``JSONValue``.
///
/// Strict where Foundation's `JSONDecoder` is strict, and about numbers stricter:
///
/// - an integer field takes an exact whole number in its type's range: a JSON integer, or a
///   whole double below 2^53 in magnitude (`1.0` and `1e3` are fine; from 2^53 on a double may
///   be a rounded stand-in for what was written, so it is refused rather than trusted).
///   Anything else is `DecodingError.dataCorrupted` at the field's path:
///   `the number 1.5 does not fit its field (expected a whole number in range)`;
/// - `Double` takes any number, `Float` any number within its range;
/// - `Bool` takes only `true` and `false`, `String` only strings: no conversions;
/// - a missing key is `keyNotFound`, a wrong kind of value `typeMismatch`, a null where a
///   value is needed `valueNotFound`, each with the coding path, so that
///   ``Swift/DecodingError/conciseDescription`` reads `at action.add: missing "text"`.
///
/// `Date` reads as Foundation's default writes it (its own conformance: a number of seconds
/// since 2001-01-01), so records written by Foundation's `JSONEncoder` still decode.
package struct JSONValueDecoder: Sendable {
    /// A decoder; it has no options (the wire reads JSON one way).
    package init() {}

    /// Decodes a value of `type` from `value`.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - value: the JSON to read it from.
    package func decode<T: Decodable>(_ type: T.Type = T.self, from value: JSONValue) throws -> T {
        try T(from: JSONValueReader(value: value, parent: nil, step: nil))
    }
}

/// The `Decoder` given to `init(from:)`: one JSON value and where it is in the document.
///
/// Each nested value gets a reader of its own, which knows its parent and its key; the coding
/// path is put together only when someone asks for it (an error, mostly).
final class JSONValueReader: Decoder {
    let value: JSONValue
    private let parent: JSONValueReader?
    private let step: CodingPathStep?

    init(value: JSONValue, parent: JSONValueReader?, step: CodingPathStep?) {
        self.value = value
        self.parent = parent
        self.step = step
    }

    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let step { path.append(step.key) }
        return path
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else {
            throw mismatch([String: Any].self, found: value, at: nil)
        }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(reader: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(elements) = value else {
            throw mismatch([Any].self, found: value, at: nil)
        }
        return JSONUnkeyedDecodingContainer(reader: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecodingContainer(reader: self)
    }

    /// Decodes a nested value, found at `step`, with a reader of its own.
    func decodeChild<T: Decodable>(_ type: T.Type, from value: JSONValue, at step: CodingPathStep) throws -> T {
        try T(from: JSONValueReader(value: value, parent: self, step: step))
    }

    /// A reader for a nested value, for nested containers and super decoders.
    func child(_ value: JSONValue, at step: CodingPathStep) -> JSONValueReader {
        JSONValueReader(value: value, parent: self, step: step)
    }

    // MARK: Scalars, shared by the three kinds of container
    //
    // `step` says where the value is, for an error; it is only worked out when there is one.

    func readBool(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Bool {
        guard case let .bool(bool) = value else { throw mismatch(Bool.self, found: value, at: step()) }
        return bool
    }

    func readString(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> String {
        guard case let .string(string) = value else { throw mismatch(String.self, found: value, at: step()) }
        return string
    }

    func readDouble(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Double {
        switch value {
        case let .double(double): return double
        case let .integer(integer): return Double(integer)
        default: throw mismatch(Double.self, found: value, at: step())
        }
    }

    func readFloat(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Float {
        let double = try readDouble(value, at: step())
        let float = Float(double)
        guard float.isFinite else {
            throw doesNotFit(value, at: step(), expected: "a number within the range of a 32-bit float")
        }
        return float
    }

    func readInteger<T: FixedWidthInteger>(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> T {
        switch value {
        case let .integer(integer):
            if let exact = T(exactly: integer) { return exact }
        case let .double(double):
            // Below 2^53 doubles are less than 1 apart, so a whole one stands for itself; from
            // there on one double stands for several whole numbers (9007199254740993 reads as
            // 9007199254740992), and which of them was written is lost.
            if double.magnitude < 0x1p53, let exact = T(exactly: double) { return exact }
        default:
            throw mismatch(T.self, found: value, at: step())
        }
        throw doesNotFit(value, at: step(), expected: "a whole number in range")
    }

    // MARK: Errors

    /// How a `valueNotFound` for reading past the end of an array starts, so that
    /// ``Swift/DecodingError/conciseDescription`` can tell it from a null.
    static let noElementExplanation = "the array has no element"

    /// The path of a value at `step` below this reader (or of this reader's own value).
    func path(to step: CodingPathStep?) -> [any CodingKey] {
        codingPath + (step.map { [$0.key] } ?? [])
    }

    /// `valueNotFound` for a null, `typeMismatch` for any other kind of value.
    func mismatch(_ type: Any.Type, found value: JSONValue, at step: CodingPathStep?) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path(to: step), debugDescription: "found null"))
        }
        return .typeMismatch(type, .init(codingPath: path(to: step), debugDescription: "found \(Self.describe(value))"))
    }

    private func doesNotFit(_ value: JSONValue, at step: CodingPathStep?, expected: String) -> DecodingError {
        .dataCorrupted(.init(
            codingPath: path(to: step),
            debugDescription: "the number \(Self.numberText(value)) does not fit its field (expected \(expected))"))
    }

    /// A number as the wire writes it (which is as it was written, up to the form of doubles).
    private static func numberText(_ value: JSONValue) -> String {
        var writer = JSONByteWriter()
        switch value {
        case let .integer(integer): writer.writeInteger(integer)
        case let .double(double): writer.writeDouble(double)
        default: return "?"
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// What a value is, for "found ..." in messages: short values are shown.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case let .bool(bool): return bool ? "true" : "false"
        case .integer, .double: return "the number \(numberText(value))"
        case let .string(string):
            guard string.count <= 40 else { return "a string" }
            var writer = JSONByteWriter()
            writer.writeString(string)
            return "the string \(String(decoding: writer.bytes, as: UTF8.self))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
