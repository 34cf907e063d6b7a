/// Appends JSON text to a byte buffer. The one place that decides how the wire writes JSON,
/// shared by ``JSONSerializer`` (a ``JSONValue``) and the encoder (any `Encodable`):
///
/// - compact: no whitespace at all;
/// - object keys sorted by their UTF-8 bytes, so the same value is always the same text;
/// - strings: `"` and `\` escaped, control characters as `\n` `\r` `\t` `\b` `\f` or `\u00XX`
///   (DEL and the C1 controls too, which JSON does not require);
///   everything else, `/` and non-ASCII characters included, as raw UTF-8;
/// - doubles as the shortest text that reads back as the same double, without a trailing
///   `.0` (`1`, `1.5`, `1e+20`, `5e-324`): what Foundation's JSONEncoder writes.
struct JSONByteWriter {
    var bytes: [UInt8] = []

    // MARK: Scalars

    mutating func writeNull() {
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) // null
    }

    mutating func writeBool(_ value: Bool) {
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) // true
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) // false
        }
    }

    mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        Self.appendDecimal(value.magnitude, to: &bytes)
    }

    /// Appends `value` in decimal digits.
    static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        bytes.appendWritten(atMost: 20) { $0.writeDecimal(value) }
    }

    /// Writes a finite double (the callers refuse the others with an error that has a path).
    mutating func writeDouble(_ value: Double) {
        if let microseconds = Self.wholeMicroseconds(value) {
            writeMicroseconds(microseconds)
        } else {
            writeNumberDescription(value.description)
        }
    }

    /// The number of millionths in `value` when it is a whole number of them (as the times
    /// ``SystemTime`` gives) between 1 and 2^33, else nil.
    ///
    /// Such a value's shortest text is its decimal digits with at most six after the point:
    /// below 2^33 doubles are less than 1e-6 / 2 apart, so no other decimal with six digits or
    /// fewer after the point reads back as the same double. It is written from the integer,
    /// about twenty times faster than the general shortest-text algorithm (a journal writes one
    /// such time with every action).
    static func wholeMicroseconds(_ value: Double) -> UInt64? {
        guard value >= 1, value < 8_589_934_592 else { return nil }
        // The whole part and the fraction apart (both exact): the fraction times a million is
        // off by far less than a half, where the whole value times a million could be off by
        // more than one. Both are converted by truncation, which for a positive number is
        // rounding down, and adding a half first rounds to the nearest: no call into the C
        // library's `floor` and `round`. A value this rounds wrongly (a fraction within a
        // rounding error of a half millionth) is no whole number of millionths, which the
        // check below finds either way.
        let seconds = UInt64(value)
        let fraction = UInt64((value - Double(seconds)) * 1_000_000 + 0.5)
        let microseconds = seconds &* 1_000_000 &+ fraction
        guard Double(microseconds) / 1_000_000 == value else { return nil }
        return microseconds
    }

    /// Writes millionths as a decimal number (see ``ByteCursor/writeMicroseconds(_:)``).
    private mutating func writeMicroseconds(_ microseconds: UInt64) {
        bytes.appendWritten(atMost: 27) { $0.writeMicroseconds(microseconds) }
    }

    /// Writes a finite Float as its own shortest text.
    mutating func writeFloat(_ value: Float) {
        writeNumberDescription(value.description)
    }

    /// Swift's description of a floating-point number is the shortest text that reads back as
    /// the same number; it ends in ".0" for whole numbers, which Foundation leaves out and so
    /// do we.
    private mutating func writeNumberDescription(_ description: String) {
        let text = description.utf8
        if text.count >= 2, text.suffix(2).elementsEqual([UInt8(ascii: "."), UInt8(ascii: "0")]) {
            bytes.append(contentsOf: text.dropLast(2))
        } else {
            bytes.append(contentsOf: text)
        }
    }

    /// Writes a string in quotes, with JSON's escapes; returns whether it was all ASCII.
    ///
    /// Beyond what JSON requires, DEL and the C1 controls (U+007F to U+009F) are escaped too
    /// (`\u007f`, `\u009b`): some terminals obey them, and JSON is often printed to one.
    @discardableResult
    mutating func writeString(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { utf8 in
            bytes.append(UInt8(ascii: "\""))
            // Copy runs of bytes that need no escape in one go.
            var runStart = 0
            var allBytesOred: UInt8 = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                allBytesOred |= byte
                if byte >= 0x20, byte < 0x7f, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if byte > 0x7f {
                    // U+0080 to U+009F are C2 80 to C2 9F in UTF-8; other bytes are plain text.
                    guard byte == 0xc2, index + 1 < utf8.count, (0x80 ... 0x9f).contains(utf8[index + 1]) else {
                        index += 1
                        continue
                    }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart ..< index]))
                    appendUnicodeEscape(of: utf8[index + 1])
                    index += 2
                    runStart = index
                    continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart ..< index]))
                appendEscape(of: byte)
                index += 1
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            bytes.append(UInt8(ascii: "\""))
            return allBytesOred < 0x80
        }
    }

    /// `\u00XX` for a code point below U+0100.
    private mutating func appendUnicodeEscape(of codePoint: UInt8) {
        let hexDigits: StaticString = "0123456789abcdef"
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
        bytes.append(hexDigits.utf8Start[Int(codePoint >> 4)])
        bytes.append(hexDigits.utf8Start[Int(codePoint & 0x0F)])
    }

    private mutating func appendEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            bytes.removeLast()
            appendUnicodeEscape(of: byte)
        }
    }

    // MARK: Values

    /// Writes a whole JSON value.
    mutating func write(_ value: JSONValue) throws(NonFiniteNumberError) {
        switch value {
        case .null: writeNull()
        case let .bool(bool): writeBool(bool)
        case let .integer(integer): writeInteger(integer)
        case let .double(double):
            guard double.isFinite else { throw NonFiniteNumberError(value: double) }
            writeDouble(double)
        case let .string(string): writeString(string)
        case let .array(elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                do {
                    try write(element)
                } catch {
                    throw error.inside(AnyCodingKey(intValue: index)!)
                }
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(members):
            try writeObject(members)
        }
    }

    /// Writes an object, with `extra` among its members (in its place in the order, in place of
    /// a member of the same key) when given: an object and one more member, without a copy.
    mutating func writeObject(_ members: [String: JSONValue], extra: (key: String, value: JSONValue)? = nil) throws(NonFiniteNumberError) {
        bytes.append(UInt8(ascii: "{"))
        var isFirst = true
        var pending = extra
        func member(_ key: String, _ value: JSONValue) throws(NonFiniteNumberError) {
            if !isFirst { bytes.append(UInt8(ascii: ",")) }
            isFirst = false
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            do {
                try write(value)
            } catch {
                throw error.inside(AnyCodingKey(key))
            }
        }
        func writeMembers(in order: some Sequence<(key: String, value: JSONValue)>) throws(NonFiniteNumberError) {
            for (key, value) in order {
                if let extra = pending, !Self.utf8Precedes(key, extra.key) {
                    pending = nil
                    try member(extra.key, extra.value)
                    if key == extra.key { continue }
                }
                try member(key, value)
            }
        }
        // One member needs no sorting (and no array of the members sorted).
        if members.count <= 1 {
            try writeMembers(in: members)
        } else {
            try writeMembers(in: members.sorted(by: { Self.utf8Precedes($0.key, $1.key) }))
        }
        if let extra = pending { try member(extra.key, extra.value) }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Whether `a` comes before `b` in the order of their UTF-8 bytes, the order of keys in
    /// every object the wire writes. (Swift's `<` on strings compares Unicode-normalized
    /// characters, which differs for some non-ASCII keys.)
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        compareUTF8(a, b) < 0
    }

    /// Compares two strings by their UTF-8 bytes: negative, zero or positive.
    static func compareUTF8(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { aBytes in
            b.withUTF8 { bBytes in
                for index in 0 ..< min(aBytes.count, bBytes.count) where aBytes[index] != bBytes[index] {
                    return Int(aBytes[index]) - Int(bBytes[index])
                }
                return aBytes.count - bBytes.count
            }
        }
    }
}

/// A NaN or an infinity met while writing JSON, which has no way to write one; the path to it
/// is filled in as the error leaves each enclosing array and object.
struct NonFiniteNumberError: Error {
    var value: Double
    var path: [AnyCodingKey] = []

    func inside(_ key: AnyCodingKey) -> NonFiniteNumberError {
        NonFiniteNumberError(value: value, path: [key] + path)
    }

    /// The standard error an encoder throws for a value it cannot write.
    func encodingError(under prefix: [any CodingKey] = []) -> EncodingError {
        EncodingError.invalidValue(value, .init(
            codingPath: prefix + path,
            debugDescription: "\(value) cannot be written as JSON (only finite numbers can)"))
    }
}

/// Writes a ``JSONValue`` as JSON text, exactly as ``WireJSON/encode(_:)`` writes everything:
/// compact, object keys sorted by their UTF-8 bytes, `/` and non-ASCII characters unescaped.
package enum JSONSerializer {
    /// The JSON text of `value`.
    ///
    /// - Parameters:
    ///   - value: the value to write.
    /// - Throws: `EncodingError.invalidValue` for a NaN or an infinity, which JSON cannot hold;
    ///   the coding path leads to it.
    package static func serialize(_ value: JSONValue) throws -> [UInt8] {
        var bytes: [UInt8] = []
        // Room for a small value at once, not grown from nothing in two or three steps.
        bytes.reserveCapacity(64)
        try append(value, to: &bytes)
        return bytes
    }

    /// Appends the JSON text of `value` (as ``serialize(_:)`` writes it) to `bytes`: for text
    /// put together from pieces, written where it goes rather than into an array of its own.
    ///
    /// - Parameters:
    ///   - value: the value to write.
    ///   - bytes: where it goes; on a throw, it may hold part of the value's text.
    /// - Throws: as ``serialize(_:)``.
    package static func append(_ value: JSONValue, to bytes: inout [UInt8]) throws {
        var writer = JSONByteWriter()
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        do {
            try writer.write(value)
        } catch {
            throw error.encodingError()
        }
    }
}

extension JSONSerializer {
    /// The JSON text of an object with one member set, as if it were added to the object first,
    /// but without copying the object.
    ///
    /// - Parameters:
    ///   - members: the object's members.
    ///   - key: the member to set (it replaces a member of that key).
    ///   - value: its value.
    /// - Throws: `EncodingError.invalidValue` for a NaN or an infinity.
    package static func serialize(_ members: [String: JSONValue], setting key: String, to value: JSONValue) throws -> [UInt8] {
        var writer = JSONByteWriter()
        do {
            try writer.writeObject(members, extra: (key, value))
        } catch {
            throw error.encodingError()
        }
        return writer.bytes
    }
}

/// Pieces of JSON text, written as ``WireJSON`` writes them, for code that assembles a
/// document from parts it already has as text (the core's journal records).
package enum JSONFragment {
    /// A string in quotes, with JSON's escapes.
    /// - Parameter string: the string.
    package static func string(_ string: String) -> [UInt8] {
        var writer = JSONByteWriter()
        writer.writeString(string)
        return writer.bytes
    }

    /// A finite double as its shortest text.
    /// - Parameter value: the number; it must be finite.
    package static func double(_ value: Double) -> [UInt8] {
        var writer = JSONByteWriter()
        writer.writeDouble(value)
        return writer.bytes
    }

    /// Appends a finite double's text (as ``double(_:)`` writes it) to `bytes`.
    /// - Parameters:
    ///   - value: the number (finite).
    ///   - bytes: where it goes.
    package static func append(_ value: Double, to bytes: inout [UInt8]) {
        var writer = JSONByteWriter()
        swap(&writer.bytes, &bytes)
        writer.writeDouble(value)
        swap(&writer.bytes, &bytes)
    }

    /// Appends a whole number in decimal to `bytes`.
    /// - Parameters:
    ///   - value: the number.
    ///   - bytes: where it goes.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        JSONByteWriter.appendDecimal(value, to: &bytes)
    }
}
