/// UTF-8 as RFC 3629 and Unicode (table 3-7, "well-formed UTF-8 byte sequences") define it:
/// no overlong forms, no encoded surrogates (U+D800...U+DFFF), nothing above U+10FFFF.
///
/// The parser leaves the fast check to the standard library (`String(validating:)`); these
/// helpers only find and describe the first bad byte once a text is known to be invalid, and
/// read one character where the parser needs to name it in a message.
enum UTF8Validation {
    /// The length of the well-formed sequence starting at `index`, or nil if the bytes there
    /// are not one (a stray continuation byte, a byte never used in UTF-8, an overlong form,
    /// an encoded surrogate, a value above U+10FFFF, or a sequence cut short).
    static func sequenceLength(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let lead = bytes[index]
        if lead < 0x80 { return 1 }
        // The allowed range of the second byte depends on the lead byte: that is where overlong
        // forms, surrogates and values above U+10FFFF are excluded. Later bytes are 80...BF.
        let length: Int
        let second: ClosedRange<UInt8>
        switch lead {
        case 0xC2 ... 0xDF: length = 2; second = 0x80 ... 0xBF
        case 0xE0: length = 3; second = 0xA0 ... 0xBF
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3; second = 0x80 ... 0xBF
        case 0xED: length = 3; second = 0x80 ... 0x9F
        case 0xF0: length = 4; second = 0x90 ... 0xBF
        case 0xF1 ... 0xF3: length = 4; second = 0x80 ... 0xBF
        case 0xF4: length = 4; second = 0x80 ... 0x8F
        default: return nil // 80...C1 (continuation bytes, overlong two-byte leads) and F5...FF
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        for offset in 2 ..< length where !(0x80 ... 0xBF).contains(bytes[index + offset]) {
            return nil
        }
        return length
    }

    /// The offset of the first byte of the first ill-formed sequence in `range`, or nil if the
    /// bytes there are all well-formed UTF-8.
    static func firstInvalidOffset(in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            // A sequence running past the end of the range is as bad as one cut short.
            guard let length = sequenceLength(at: index, in: UnsafeBufferPointer(rebasing: bytes[..<range.upperBound])) else {
                return index
            }
            index += length
        }
        return nil
    }

    /// The one-line message for an ill-formed sequence starting at `offset`.
    static func invalidMessage(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        "the text is not valid UTF-8 (byte \(hexByte(bytes[offset])) at offset \(offset))"
    }

    /// The Unicode scalar encoded at `index`, if a well-formed sequence starts there.
    static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard let length = sequenceLength(at: index, in: bytes) else { return nil }
        if length == 1 { return Unicode.Scalar(bytes[index]) }
        // The lead byte keeps 7 - length payload bits; each continuation byte carries 6.
        var value = UInt32(bytes[index]) & (0x7F >> UInt32(length))
        for offset in 1 ..< length {
            value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
        }
        return Unicode.Scalar(value)
    }

    /// `0xff`: a byte as messages show it.
    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}
