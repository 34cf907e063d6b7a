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
final class JSONValueReader: Decoder, JSONScalarReading {
    let value: JSONValue
    private let parent: JSONValueReader?
    let step: CodingPathStep?

    init(value: JSONValue, parent: JSONValueReader?, step: CodingPathStep?) {
        self.value = value
        self.parent = parent
        self.step = step
    }

    /// `decoder` itself if it is a value reader. Its type is compared, not cast: a cast of an
    /// existential to a class asks the runtime, at several hundred instructions, and every
    /// tagged value of every action asks this (``SingleKeyCoding``). (Written for each reader:
    /// in code generic over the reader, the optional result's type is looked up at each call.)
    /// - Parameter decoder: any decoder.
    static func of(_ decoder: any Decoder) -> JSONValueReader? {
        func opened<D: Decoder>(_ decoder: D) -> JSONValueReader? {
            guard D.self == JSONValueReader.self else { return nil }
            // D is this class: the value is one reference.
            return Unmanaged<JSONValueReader>.fromOpaque(unsafeBitCast(decoder, to: UnsafeRawPointer.self)).takeUnretainedValue()
        }
        return opened(decoder)
    }

    /// Where the value is in the document: its parent's path, then its step.
    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let step { path.append(step.key) }
        return path
    }

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
}
