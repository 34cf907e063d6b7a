/// Reads any `Decodable` value straight out of JSON text, through a ``JSONTape``: by the same
/// rules and with the same errors as ``JSONValueDecoder`` reading what ``JSONParser`` makes of
/// the same text, without making that ``JSONValue`` first (no dictionary per object, no string
/// per key: at an action's size, a third of the instructions).
package enum JSONTapeDecoder {
    /// Decodes a value of `type` from a whole JSON text.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - text: the bytes.
    package static func decode<T: Decodable>(_ type: T.Type, from text: some Collection<UInt8>) throws -> T {
        try JSONTape(text).decode(type)
    }
}

extension JSONTape {
    /// Decodes a value of `type` from the document.
    /// - Parameter type: the type to decode.
    /// - Throws: `DecodingError` if the document is not a `type`, and whatever `type`'s own
    ///   decoding throws.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        precondition(!entries.isEmpty, "decoding a tape that holds no document")
        return try T(from: JSONTapeReader(tape: self, index: 0, parent: nil, step: nil))
    }

    /// The document as a ``JSONValue``: what ``JSONParser`` makes of the same text.
    package var value: JSONValue { value(at: 0) }
}

/// The `Decoder` given to `init(from:)` by ``JSONTapeDecoder``: one entry of a tape and where
/// it is in the document.
///
/// As with ``JSONValueReader``, each nested value gets a reader of its own, which knows its
/// parent and its key, and the coding path is put together only when someone asks for it.
final class JSONTapeReader: Decoder, JSONScalarReading {
    let tape: JSONTape
    /// The value's entry; -1 stands for a null that is not in the text (the super decoder of a
    /// member that is missing).
    let index: Int
    private let parent: JSONTapeReader?
    let step: CodingPathStep?

    init(tape: JSONTape, index: Int, parent: JSONTapeReader?, step: CodingPathStep?) {
        self.tape = tape
        self.index = index
        self.parent = parent
        self.step = step
    }

    /// `decoder` itself if it is a tape reader. Its type is compared, not cast: a cast of an
    /// existential to a class asks the runtime, at several hundred instructions, and every
    /// tagged value of every action asks this (``SingleKeyCoding``). (Written for each reader:
    /// in code generic over the reader, the optional result's type is looked up at each call.)
    /// - Parameter decoder: any decoder.
    static func of(_ decoder: any Decoder) -> JSONTapeReader? {
        func opened<D: Decoder>(_ decoder: D) -> JSONTapeReader? {
            guard D.self == JSONTapeReader.self else { return nil }
            // D is this class: the value is one reference.
            return Unmanaged<JSONTapeReader>.fromOpaque(unsafeBitCast(decoder, to: UnsafeRawPointer.self)).takeUnretainedValue()
        }
        return opened(decoder)
    }

    var parentReader: (any JSONScalarReading)? { parent }

    /// The kind of the value (a missing member reads as null).
    var kind: JSONTape.Kind { index < 0 ? .null : tape.entries[index].kind }

    /// The value as a scalar, for the shared rules (see ``JSONTape/scalar(at:)``).
    var scalar: JSONValue { index < 0 ? .null : tape.scalar(at: index) }

    /// The scalar at `entry`, which may be -1 (a null not in the text).
    func scalar(at entry: Int) -> JSONValue { entry < 0 ? .null : tape.scalar(at: entry) }

    /// The value as a ``JSONValue``: what ``JSONParser`` makes of it.
    var value: JSONValue { index < 0 ? .null : tape.value(at: index) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard kind == .object else {
            throw mismatch([String: Any].self, found: scalar, at: nil)
        }
        return KeyedDecodingContainer(JSONTapeKeyedDecodingContainer<Key>(reader: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard kind == .array else {
            throw mismatch([Any].self, found: scalar, at: nil)
        }
        return JSONTapeUnkeyedDecodingContainer(reader: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONTapeSingleValueDecodingContainer(reader: self)
    }

    /// Decodes a nested value, whose entry is `entry`, found at `step`, with a reader of its own.
    func decodeChild<T: Decodable>(_ type: T.Type, at entry: Int, step: CodingPathStep) throws -> T {
        try T(from: JSONTapeReader(tape: tape, index: entry, parent: self, step: step))
    }

    /// A reader for a nested value, for nested containers and super decoders.
    func child(_ entry: Int, at step: CodingPathStep) -> JSONTapeReader {
        JSONTapeReader(tape: tape, index: entry, parent: self, step: step)
    }

    /// Whether the value at `entry` is null (or -1).
    func isNull(_ entry: Int) -> Bool { entry < 0 || tape.entries[entry].kind == .null }

    // MARK: Scalars, by the rules every reader of this wire shares
    //
    // Only a string makes a String; a number or a literal is handed over as it is.

    func readBool(_ entry: Int, at step: @autoclosure () -> CodingPathStep?) throws -> Bool {
        if entry >= 0, tape.entries[entry].kind == .bool { return tape.entries[entry].flag }
        return try readBool(scalar(at: entry), at: step())
    }

    func readString(_ entry: Int, at step: @autoclosure () -> CodingPathStep?) throws -> String {
        if entry >= 0, tape.entries[entry].kind == .string { return tape.string(at: entry) }
        return try readString(scalar(at: entry), at: step())
    }

    func readDouble(_ entry: Int, at step: @autoclosure () -> CodingPathStep?) throws -> Double {
        try readDouble(scalar(at: entry), at: step())
    }

    func readFloat(_ entry: Int, at step: @autoclosure () -> CodingPathStep?) throws -> Float {
        try readFloat(scalar(at: entry), at: step())
    }

    func readInteger<T: FixedWidthInteger>(_ entry: Int, at step: @autoclosure () -> CodingPathStep?) throws -> T {
        try readInteger(scalar(at: entry), at: step())
    }

    // MARK: Tagged values

    /// The case name of an externally tagged value in one of its two good shapes (a bare
    /// string among `names`, or an object whose one key is among them), and a reader of the
    /// payload for the second; nil for anything else (see ``SingleKeyCoding``).
    func tag(among names: [String]) -> SingleKeyCoding.Tag? {
        switch kind {
        case .string:
            guard let name = name(at: index, among: names) else { return nil }
            return SingleKeyCoding.Tag(name: name, payload: nil)
        case .object where tape.entries[index].second == 1:
            guard let name = name(at: index + 1, among: names) else { return nil }
            return SingleKeyCoding.Tag(name: name, payload: child(index + 2, at: .name(name)))
        default:
            return nil
        }
    }

    /// The one of `names` that the string or key at `entry` is. An ASCII text is compared by
    /// its bytes, and the name handed back is the caller's own (no string is made of the
    /// text); any other is made a string and compared as Swift compares strings.
    private func name(at entry: Int, among names: [String]) -> String? {
        guard tape.entries[entry].flag else {
            let name = tape.string(at: entry)
            return names.contains(name) ? name : nil
        }
        return tape.withBytes(of: entry) { bytes in
            for name in names where name.utf8.count == bytes.count {
                // Compared as two buffers (a String's UTF-8 view, walked as a collection, costs
                // several times as much).
                var candidate = name
                if candidate.withUTF8({ JSONTape.same($0, bytes) }) { return name }
            }
            return nil
        }
    }
}
