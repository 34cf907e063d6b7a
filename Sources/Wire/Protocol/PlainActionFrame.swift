/// The envelope of an action message in its plain form, found by one pass over the bytes
/// without building a tree: `{"action":{"client":"…","seq":N,"action":…}}`, its three members
/// in any order, with or without whitespace. The core reads most frames this way; it then
/// parses only the action itself, and can copy the action's text as it came (into its journal).
///
/// It only ever says yes to text the strict reader takes the same way, once the action's own
/// bytes parse: anything it is not sure of (an escape or a non-ASCII byte in the client id, a
/// seq that is not a plain whole number from 1 to 2^63-1, another member, a repeated one) is
/// nil, and the caller reads the frame the general way, which also says what is wrong.
public struct PlainActionFrame: Sendable, Equatable {
    /// The action's sequence number.
    public var seq: UInt64
    /// Where the action's JSON is in the frame.
    public var action: Range<Int>

    /// Finds the envelope in `bytes`, a frame's payload.
    /// - Parameter bytes: the payload.
    /// - Returns: the seq and where the action is, or nil if this is not an action in its plain
    ///   form.
    public static func scan(_ bytes: [UInt8]) -> PlainActionFrame? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = EnvelopeScanner(bytes: buffer)
            return scanner.scan()
        }
    }
}

private struct EnvelopeScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func scan() -> PlainActionFrame? {
        guard take(UInt8(ascii: "{")), takeKey(Self.action), take(UInt8(ascii: "{")) else { return nil }
        var seq: UInt64?
        var action: Range<Int>?
        var sawClient = false
        for member in 0 ..< 3 {
            if member > 0, !take(UInt8(ascii: ",")) { return nil }
            if takeKey(Self.client) {
                guard !sawClient, skipPlainString() else { return nil }
                sawClient = true
            } else if takeKey(Self.seq) {
                guard seq == nil, let number = wholeNumber() else { return nil }
                seq = number
            } else if takeKey(Self.action) {
                guard action == nil, let range = value() else { return nil }
                action = range
            } else {
                return nil
            }
        }
        guard take(UInt8(ascii: "}")), take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count, sawClient, let seq, let action else { return nil }
        return PlainActionFrame(seq: seq, action: action)
    }

    static let action = Array(#""action""#.utf8)
    static let client = Array(#""client""#.utf8)
    static let seq = Array(#""seq""#.utf8)

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Takes `byte` after any whitespace.
    mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Takes `"key"` and its colon, or nothing.
    mutating func takeKey(_ key: [UInt8]) -> Bool {
        skipWhitespace()
        guard bytes.count - position >= key.count else { return false }
        for (offset, byte) in key.enumerated() where bytes[position + offset] != byte { return false }
        let start = position
        position += key.count
        guard take(UInt8(ascii: ":")) else {
            position = start
            return false
        }
        return true
    }

    /// A string of printable ASCII without escapes.
    mutating func skipPlainString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return true }
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") { return false }
        }
        return false
    }

    /// 1 to 2^63-1, written plainly (no sign, leading zero, fraction or exponent).
    mutating func wholeNumber() -> UInt64? {
        skipWhitespace()
        guard position < bytes.count, (UInt8(ascii: "1") ... UInt8(ascii: "9")).contains(bytes[position]) else { return nil }
        var value: UInt64 = 0
        while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            value = times + UInt64(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        guard value <= UInt64(Int64.max) else { return nil }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) { return nil }
        return value
    }

    /// Skips one value by its structure (its validity is for the parser to judge); returns
    /// its range.
    mutating func value() -> Range<Int>? {
        skipWhitespace()
        let start = position
        var depth = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard position < bytes.count else { return nil }
                position += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return start < position ? start ..< position : nil }
                depth -= 1
                position += 1
            case UInt8(ascii: ","):
                if depth == 0 { return start < position ? start ..< position : nil }
                position += 1
            default:
                position += 1
            }
            if depth == 0, byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "\"") {
                // A whole object, array or string: what follows is the envelope's.
                return start ..< position
            }
        }
        return nil
    }
}
