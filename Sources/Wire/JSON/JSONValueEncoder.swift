/// Turns any `Encodable` value into its JSON: a ``JSONValue``, or the wire's JSON text.
///
/// The JSON is what Foundation's `JSONEncoder` with its default strategies writes, for the
/// types this wire carries: structs and enums as objects, optionals as null or the value,
/// integers exactly, doubles as the shortest text that reads back the same, `Date` by its own
/// conformance (seconds since 2001-01-01, Foundation's `.deferredToDate`). Unlike Foundation
/// there are no special cases for `Data` (Foundation: base64), `URL` or `Decimal`: they encode
/// through their own conformances (none of the wire's types holds one).
///
/// Refused with `EncodingError.invalidValue`, at the value's coding path:
/// - NaN and infinities, which JSON cannot write;
/// - unsigned integers above `Int64.max`: the parser reads integers beyond the signed 64-bit
///   range as doubles, which would round them, so such a number could not come back as written.
package struct JSONValueEncoder: Sendable {
    /// An encoder; it has no options (the wire writes JSON one way).
    package init() {}

    /// The JSON value of `value`: the same value that parsing its JSON text would give
    /// (for instance, a whole `Double` such as `3.0` is ``JSONValue/integer(_:)``, as its
    /// text `3` reads back).
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    package func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try ArenaEncoder.encode(value).jsonValue(of: EncodingArena.root)
    }

    /// The JSON text of `value`: compact, object keys sorted by their UTF-8 bytes, `/` and
    /// non-ASCII characters unescaped (see ``WireJSON``).
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    package func encodeToBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let arena = try ArenaEncoder.encode(value)
        var writer = EncodingArenaWriter(entries: arena.entries)
        do {
            try writer.write(EncodingArena.root)
        } catch {
            // Only a JSONValue that holds a NaN gets here; encoded doubles are checked on the way.
            throw error.encodingError()
        }
        return writer.output.bytes
    }
}

/// The `Encoder` given to `encode(to:)`: one slot of an ``EncodingArena``. A struct of two
/// words, so that handing a nested value its own encoder allocates nothing.
struct ArenaEncoder: Encoder {
    let arena: EncodingArena
    let slot: Int32

    /// Encodes a top-level value into a new arena.
    static func encode<T: Encodable>(_ value: T) throws -> EncodingArena {
        let arena = EncodingArena()
        try value.encode(to: ArenaEncoder(arena: arena, slot: EncodingArena.root))
        if case .empty = arena.entries[Int(EncodingArena.root)].content {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(T.self) did not encode any value"))
        }
        return arena
    }

    var codingPath: [any CodingKey] { arena.codingPath(of: slot) }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        arena.openObject(at: slot)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<Key>(arena: arena, object: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        arena.openArray(at: slot)
        return JSONUnkeyedEncodingContainer(arena: arena, array: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(arena: arena, slot: slot)
    }
}

/// How scalars become JSON, shared by the three kinds of container. `path` gives the coding
/// path for an error; it is only called when there is one.
enum ScalarEncoding {
    static func double(_ value: Double, path: () -> [any CodingKey]) throws -> EncodingArena.Content {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "\(value) cannot be written as JSON (only finite numbers can)"))
        }
        return .value(JSONValue(number: value))
    }

    static func float(_ value: Float, path: () -> [any CodingKey]) throws -> EncodingArena.Content {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "\(value) cannot be written as JSON (only finite numbers can)"))
        }
        return .float(value)
    }

    /// The JSON value of a finite Float: what its text reads back as. Its text is its own
    /// shortest text ("0.1", as Foundation writes it), so the value is the double nearest that
    /// text rather than the float's exact binary value (0.100000001490116...); decoding it as
    /// a Float gives back the same float.
    static func jsonValue(of float: Float) -> JSONValue {
        var writer = JSONByteWriter()
        writer.writeFloat(float)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        if let integer = Int64(text) { return .integer(integer) }
        return .double(Double(text) ?? Double(float))
    }

    static func integer<T: FixedWidthInteger>(_ value: T, path: () -> [any CodingKey]) throws -> EncodingArena.Content {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path(), debugDescription: "the number \(value) is above 2^63-1, the largest whole number this wire carries exactly"))
        }
        return .value(.integer(integer))
    }
}

extension JSONValue {
    /// The JSON value of a finite double as it reads back from its text: a whole number that
    /// is written without an exponent (up to 2^53) is ``integer(_:)``, the rest ``double(_:)``.
    /// Negative zero stays a double (it is written `-0`, which the parser reads as -0.0).
    init(number: Double) {
        if let integer = Int64(exactly: number), integer.magnitude <= 1 << 53, !(integer == 0 && number.sign == .minus) {
            self = .integer(integer)
        } else {
            self = .double(number)
        }
    }
}
