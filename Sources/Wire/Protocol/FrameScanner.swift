/// Reads a frame's text by its structure, for the frames read by hand (``WelcomeFrame``,
/// ``RenditionFrame``): whitespace, punctuation, plain strings and numbers, and values skipped
/// whole. Whatever it is unsure of, its callers leave to the general reader.
///
/// Its small steps (whitespace, one byte, a key) are always inlined: each is a few instructions,
/// and an action's envelope takes a dozen of them (called, they were a fifth of reading it).
struct FrameScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Takes `byte` after any whitespace.
    @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Takes `text` after any whitespace.
    @inline(__always)
    mutating func takeExactly(_ text: StaticString) -> Bool {
        skipWhitespace()
        guard isNext(text) else { return false }
        position += text.utf8CodeUnitCount
        return true
    }

    /// Whether the bytes from `position` on start with `text` (compared byte by byte through
    /// two pointers: no array to look up, no iterator).
    @inline(__always)
    func isNext(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        let expected = UnsafeRawPointer(text.utf8Start)
        let here = UnsafeRawPointer(bytes.baseAddress! + position)
        // Eight bytes at a time (a key with its quotes is about that long), then one by one.
        var offset = 0
        while count - offset >= 8 {
            guard here.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        while offset < count {
            guard here.load(fromByteOffset: offset, as: UInt8.self) == expected.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }

    /// A string of printable ASCII without escapes.
    mutating func plainString() -> String? {
        guard let text = skipPlainString() else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self)
    }

    /// Skips a string of printable ASCII without escapes; returns where its text is (quotes
    /// excluded), or nil (and stays put) if the string is not such.
    mutating func skipPlainString() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var index = start
        // Eight bytes at a time while none of them ends the string or is not plain (a client
        // id is some 36 bytes), then one by one.
        index = PlainBytes.endOfPlainWords(in: bytes, from: index)
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        position = index + 1
        return start ..< index
    }

    /// Takes `"key"` (quotes included in `key`) and its colon after any whitespace, or nothing.
    @inline(__always)
    mutating func takeKey(_ key: StaticString) -> Bool {
        let start = position
        guard takeExactly(key), take(UInt8(ascii: ":")) else {
            position = start
            return false
        }
        return true
    }

    /// A whole number written plainly: an optional minus (when allowed), no leading zero, at
    /// most 18 digits (so it fits an Int64), and no fraction or exponent after it.
    mutating func wholeNumber(allowingSign: Bool) -> Int64? {
        var index = position
        let negative = allowingSign && index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") <= 9 {
            guard index - start < 18 else { return nil }
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), !(negative && value == 0) else { return nil }
        if index < bytes.count, Self.continuesANumber(bytes[index]) { return nil }
        position = index
        return negative ? -value : value
    }

    /// Whether `byte`, after a number's digits, starts its fraction or exponent.
    static func continuesANumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
    }

    /// Skips a string, quotes included; returns its range, quotes included.
    mutating func skipString() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position
        position += 1
        // Plain text eight bytes at a time first, then byte by byte.
        position = PlainBytes.endOfPlainWords(in: bytes, from: position)
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                position += 1
                return start ..< position
            case UInt8(ascii: "\\"):
                position += 2
            default:
                position += 1
            }
        }
        return nil
    }

    /// Skips one value by its structure (brackets matched by kind, strings skipped whole);
    /// whether it is valid JSON is not checked. Returns its range.
    mutating func skipValue() -> Range<Int>? {
        let start = position
        // The brackets open, innermost last, a bit each (1: an object): no allocation, for the
        // action of every frame. Deeper than 64 is left to the general reader.
        var open: UInt64 = 0
        var depth = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard skipString() != nil else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < 64 else { return nil }
                open = open << 1 | (byte == UInt8(ascii: "{") ? 1 : 0)
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // A closing bracket with nothing open ends the value (it is the envelope's).
                guard depth > 0 else { return start < position ? start ..< position : nil }
                guard (open & 1 == 1) == (byte == UInt8(ascii: "}")) else { return nil }
                open >>= 1
                depth -= 1
                position += 1
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return start < position ? start ..< position : nil }
                position += 1
            default:
                position += 1
            }
            if depth == 0, position > start, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                return start ..< position
            }
        }
        return nil
    }
}
