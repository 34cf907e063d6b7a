/// A `welcome` frame read in two parts: the envelope (who the core is, the revision), read by
/// hand, and the state only located, not read. A client that does not need the state (one that
/// only sends actions) or needs only its text (to print it as it came) thereby does no work in
/// proportion to the state's size beyond one pass over its bytes, and no `Codable` work at all.
///
/// It only says yes to a welcome whose envelope holds exactly the six members of a welcome,
/// each once, each value in its plain form (the core id printable ASCII without escapes, the
/// numbers whole, without leading zeros, below 10^18), as the core writes them; the general
/// reader (``WireJSON`` decoding a ``ServerMessage``) reads such a frame the same way. Anything
/// else is nil, and the caller reads the frame the general way, which also says what is wrong.
/// The state's own text is not checked at all.
public struct WelcomeFrame: Sendable, Equatable {
    /// The core's protocol version.
    public var protocolVersion: Int
    /// The id of this run of the core.
    public var core: String
    /// The core's process id.
    public var pid: Int32
    /// The shells and watchers attached.
    public var shells: Int
    /// The revision of the state.
    public var revision: UInt64
    /// Where the state's JSON text is in the frame.
    public var snapshot: Range<Int>

    /// Splits `payload`, a frame from the core, if it is a `welcome` in its plain form:
    /// `{"welcome":{…,"snapshot":STATE,…}}`, its members in any order.
    /// - Parameter payload: the frame's payload.
    /// - Returns: the envelope and where the state is, or nil.
    public static func split(_ payload: [UInt8]) -> WelcomeFrame? {
        payload.withUnsafeBufferPointer { buffer in
            var scanner = WelcomeScanner(bytes: buffer)
            return scanner.welcome()
        }
    }
}

/// Reads a welcome's envelope by the structure of the text, and skips its state.
private struct WelcomeScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    static let welcome = Array(#""welcome""#.utf8)
    /// The members' keys, quotes included; a member's bit in `seen` is its index here.
    static let keys = [#""core""#, #""pid""#, #""protocol""#, #""revision""#, #""shells""#, #""snapshot""#].map { Array($0.utf8) }

    mutating func welcome() -> WelcomeFrame? {
        guard take(UInt8(ascii: "{")), takeExactly(Self.welcome), take(UInt8(ascii: ":")), take(UInt8(ascii: "{")) else { return nil }
        var core = ""
        var pid: Int64 = 0, protocolVersion: Int64 = 0, revision: Int64 = 0, shells: Int64 = 0
        var snapshot = 0 ..< 0
        var seen: UInt8 = 0
        while true {
            skipWhitespace()
            guard let keyRange = skipString(),
                  let member = Self.keys.firstIndex(where: { $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[keyRange])) }),
                  seen & (1 << member) == 0
            else { return nil }
            seen |= 1 << member
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            switch member {
            case 0:
                guard let text = plainString() else { return nil }
                core = text
            case 5:
                guard let range = skipValue() else { return nil }
                snapshot = range
            default:
                guard let number = wholeNumber(allowingSign: member != 3) else { return nil }
                switch member {
                case 1: pid = number
                case 2: protocolVersion = number
                case 3: revision = number
                default: shells = number
                }
            }
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            break
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count, seen == 0b11_1111, let pid = Int32(exactly: pid) else { return nil }
        return WelcomeFrame(protocolVersion: Int(protocolVersion), core: core, pid: pid, shells: Int(shells), revision: UInt64(revision), snapshot: snapshot)
    }

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

    /// Takes `text` after any whitespace.
    mutating func takeExactly(_ text: [UInt8]) -> Bool {
        skipWhitespace()
        guard bytes.count - position >= text.count else { return false }
        for (offset, byte) in text.enumerated() where bytes[position + offset] != byte { return false }
        position += text.count
        return true
    }

    /// A string of printable ASCII without escapes.
    mutating func plainString() -> String? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var index = start
        while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        position = index + 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< index]), as: UTF8.self)
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
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        position = index
        return negative ? -value : value
    }

    /// Skips a string, quotes included; returns its range, quotes included.
    mutating func skipString() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position
        position += 1
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
        var open: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard skipString() != nil else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open.append(byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // A closing bracket with nothing open ends the value (it is the envelope's).
                guard let expected = open.popLast() else { return start < position ? start ..< position : nil }
                guard byte == expected else { return nil }
                position += 1
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if open.isEmpty { return start < position ? start ..< position : nil }
                position += 1
            default:
                position += 1
            }
            if open.isEmpty, position > start, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                return start ..< position
            }
        }
        return nil
    }
}
