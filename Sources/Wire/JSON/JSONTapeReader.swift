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
        return try T(from: JSONTapeReader(tape: self))
    }

    /// The document as a ``JSONValue``: what ``JSONParser`` makes of the same text.
    package var value: JSONValue { value(at: 0) }
}

/// The `Decoder` given to `init(from:)` by ``JSONTapeDecoder``: one entry of a tape, and what
/// it takes to say where it is in the document.
///
/// A struct of three words, which an `any Decoder` holds in place: the readers of a tagged
/// value's payload and of an array's elements are made for every action the core reads, and
/// as objects each was an allocation and a release that cost more than the rest of decoding
/// the action. Where such a reader is can be read from the tape itself (a tagged value's case
/// is its one key, an element its position), so it only carries its ``JSONTapeAnchor``: the
/// nearest reader above it whose step the tape cannot give (a member found by the caller's
/// coding key, which may be another spelling of the text's; a member that is missing). Only
/// those steps make an object, as every nested reader did before.
struct JSONTapeReader: Decoder, JSONScalarReading {
    let tape: JSONTape
    /// The value's entry; -1 stands for a null that is not in the text (the super decoder of a
    /// member that is missing).
    let index: Int
    /// Where the path from the document's value stops being readable from the tape (nil: it
    /// never does).
    let anchor: JSONTapeAnchor?

    /// The reader of the document's value.
    init(tape: JSONTape) {
        self.tape = tape
        index = 0
        anchor = nil
    }

    private init(tape: JSONTape, index: Int, anchor: JSONTapeAnchor?) {
        self.tape = tape
        self.index = index
        self.anchor = anchor
    }

    /// `decoder` itself if it is a tape reader. Its type is compared, not cast: a cast of an
    /// existential asks the runtime, at several hundred instructions, and every tagged value of
    /// every action asks this (``SingleKeyCoding``). (Written for each reader: in code generic
    /// over the reader, the optional result's type is looked up at each call.)
    /// - Parameter decoder: any decoder.
    static func of(_ decoder: any Decoder) -> JSONTapeReader? {
        func opened<D: Decoder>(_ decoder: D) -> JSONTapeReader? {
            guard D.self == JSONTapeReader.self else { return nil }
            // D is this type: the value is one as it is.
            return unsafeBitCast(decoder, to: JSONTapeReader.self)
        }
        return opened(decoder)
    }

    /// Where the value is in the document: the anchor's path, then the steps the tape gives
    /// from the anchor's entry down to this one.
    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var from = 0
        if let anchor {
            path = anchor.parent.codingPath
            path.append(anchor.step.key)
            from = anchor.index
        }
        if index >= 0, from >= 0 {
            for step in tape.steps(from: from, to: index) { path.append(step.key) }
        }
        return path
    }

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
        try T(from: child(entry, at: step))
    }

    /// A reader for a nested value, for nested containers and super decoders. A step the tape
    /// gives again (an element's position) is not kept; a member's key is, in an anchor.
    func child(_ entry: Int, at step: CodingPathStep) -> JSONTapeReader {
        switch step {
        case .index:
            return JSONTapeReader(tape: tape, index: entry, anchor: anchor)
        case .key, .name:
            return JSONTapeReader(tape: tape, index: entry, anchor: JSONTapeAnchor(parent: self, step: step, index: entry))
        }
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
    /// payload for the second; nil for anything else (see ``SingleKeyCoding``). Consuming: the
    /// payload's reader takes this one's references rather than retaining them again.
    consuming func tag(among names: [String]) -> SingleKeyCoding.Tag? {
        switch kind {
        case .string:
            guard let name = name(at: index, among: names) else { return nil }
            return SingleKeyCoding.Tag(name: name, payload: nil)
        case .object where tape.entries[index].second == 1:
            guard let name = name(at: index + 1, among: names) else { return nil }
            // The case is the object's one key, as the tape has it (an ASCII name matched its
            // bytes; any other is the text's): the payload's path is read from the tape.
            return SingleKeyCoding.Tag(name: name, tape: JSONTapeReader(tape: tape, index: index + 2, anchor: anchor))
        default:
            return nil
        }
    }

    /// The one of `names` that the string or key at `entry` is, and the caller's own string.
    ///
    /// An ASCII text of at most 15 bytes is first compared with each name as two words: the
    /// words a Swift string of that text is kept in (its bytes, then its count and flags),
    /// which a name with the same text is too, and two strings with the same words are the
    /// same string. That is a few instructions a name where comparing texts costs tens; if the
    /// words are not as expected (another platform, a name kept otherwise), nothing matches
    /// and the comparison below decides. Then an ASCII text is compared by its bytes; any
    /// other is made a string and compared as Swift compares strings.
    private func name(at entry: Int, among names: [String]) -> String? {
        guard tape.entries[entry].flag else {
            let name = tape.string(at: entry)
            return names.contains(name) ? name : nil
        }
        return tape.withBytes(of: entry) { bytes in
            if let words = Self.shortASCIIStringWords(bytes), let found = Self.index(of: words, in: names) {
                return names[found]
            }
            for name in names where name.utf8.count == bytes.count {
                // Compared as two buffers (a String's UTF-8 view, walked as a collection, costs
                // several times as much).
                var candidate = name
                if candidate.withUTF8({ JSONTape.same($0, bytes) }) { return name }
            }
            return nil
        }
    }

    /// Where in `names` a string kept in `words` is, comparing each name's two words where
    /// they lie in the array (walking the names as strings retains and releases each).
    private static func index(of words: (UInt64, UInt64), in names: [String]) -> Int? {
        #if _endian(little) && _pointerBitWidth(_64)
        names.withUnsafeBytes { raw in
            let stride = MemoryLayout<String>.stride
            for index in 0 ..< raw.count / stride
            where raw.loadUnaligned(fromByteOffset: index &* stride, as: UInt64.self) == words.0
                && raw.loadUnaligned(fromByteOffset: index &* stride &+ 8, as: UInt64.self) == words.1 {
                return index
            }
            return nil
        }
        #else
        nil
        #endif
    }

    /// The two words a 64-bit little-endian Swift keeps an ASCII string of at most 15 bytes in:
    /// its bytes from the first, and its count with the flags of such a string (0xE0) in the
    /// last byte. Nil for a longer text, or on another kind of machine.
    static func shortASCIIStringWords(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        #if _endian(little) && _pointerBitWidth(_64)
        guard bytes.count <= 15 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
        words.1 |= (0xE0 | UInt64(bytes.count)) << 56
        return words
        #else
        return nil
        #endif
    }
}

/// Where a ``JSONTapeReader``'s path leaves the tape: a reader reached by a step the text does
/// not give back as the caller named it (a member found by its coding key), or reached through
/// no entry at all (a member that is missing, whose super decoder reads null).
final class JSONTapeAnchor {
    /// The reader of the value that holds the anchored one.
    let parent: JSONTapeReader
    /// The step from there.
    let step: CodingPathStep
    /// The anchored reader's entry (-1 for a missing member).
    let index: Int

    init(parent: JSONTapeReader, step: CodingPathStep, index: Int) {
        self.parent = parent
        self.step = step
        self.index = index
    }
}
