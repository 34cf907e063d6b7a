/// The one JSON configuration used for everything that crosses the socket, goes into the
/// journal or is printed: compact, keys sorted by their UTF-8 bytes (so output is stable and
/// diffable), slashes and non-ASCII characters unescaped.
///
/// Reading is strict (see ``JSONParser``): duplicate keys, text that is not UTF-8 and anything
/// beyond RFC 8259 are refused with a ``JSONSyntaxError`` that says where and why; values are
/// then decoded from the text's ``JSONTape`` by the rules of ``JSONValueDecoder``, with its
/// errors (``JSONTapeDecoder``).
public enum WireJSON {
    /// The JSON text of a value.
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    /// - Throws: `EncodingError` for what JSON cannot carry (see ``JSONValueEncoder``).
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        try JSONValueEncoder().encodeToBytes(value)
    }

    /// Decodes a value from JSON text.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - bytes: the UTF-8 text.
    /// - Throws: ``JSONSyntaxError`` if the text is not JSON as this wire takes it;
    ///   `DecodingError` if it is JSON but not a `type`; and whatever `type`'s own decoding
    ///   throws. ``describeDecodingFailure(_:droppingPathPrefix:)`` makes one line of any of them.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        try JSONTapeDecoder.decode(type, from: bytes)
    }

    /// The compact JSON text of a value, as a String.
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    public static func string(_ value: some Encodable) throws -> String {
        String(decoding: try encode(value), as: UTF8.self)
    }
}
