/// A `welcome` frame read in two parts: the envelope (who the core is, the revision) decoded as
/// usual, and the state only located, not read. A client that does not need the state (one that
/// only sends actions) or needs only its text (to print it as it came) thereby does no work in
/// proportion to the state's size beyond one pass over its bytes.
///
/// It only says yes to a frame whose envelope decodes exactly as the general reader would decode
/// it: anything it is not sure of (another shape, a `snapshot` member it cannot tell apart, an
/// envelope that does not decode) is nil, and the caller reads the frame the general way, which
/// also says what is wrong. The state's own text is not checked at all.
public struct WelcomeFrame: Sendable {
    /// The welcome, its `snapshot` left out (``JSONValue/null`` in its place).
    public var welcome: Welcome<JSONValue>
    /// Where the state's JSON text is in the frame.
    public var snapshot: Range<Int>

    /// Splits `payload`, a frame from the core, if it is a `welcome` in its plain form:
    /// `{"welcome":{…,"snapshot":STATE,…}}`, its members in any order.
    /// - Parameter payload: the frame's payload.
    /// - Returns: the envelope and where the state is, or nil.
    public static func split(_ payload: [UInt8]) -> WelcomeFrame? {
        let located = payload.withUnsafeBufferPointer { buffer -> Range<Int>? in
            var scanner = WelcomeScanner(bytes: buffer)
            return scanner.snapshotRange()
        }
        guard let snapshot = located else { return nil }
        var envelope: [UInt8] = []
        envelope.reserveCapacity(payload.count - snapshot.count + 4)
        envelope.append(contentsOf: payload[..<snapshot.lowerBound])
        envelope.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        envelope.append(contentsOf: payload[snapshot.upperBound...])
        guard case let .welcome(welcome)? = try? WireJSON.decode(ServerMessage<JSONValue>.self, from: envelope) else { return nil }
        return WelcomeFrame(welcome: welcome, snapshot: snapshot)
    }
}

/// Finds the `snapshot` member of a welcome by the structure of the text alone.
private struct WelcomeScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    static let welcome = Array(#""welcome""#.utf8)
    static let snapshot = Array(#""snapshot""#.utf8)

    mutating func snapshotRange() -> Range<Int>? {
        guard take(UInt8(ascii: "{")), takeExactly(Self.welcome), take(UInt8(ascii: ":")), take(UInt8(ascii: "{")) else { return nil }
        var snapshot: Range<Int>?
        if take(UInt8(ascii: "}")) { return nil }
        while true {
            skipWhitespace()
            guard let key = skipString() else { return nil }
            let isSnapshot = bytes[key].elementsEqual(Self.snapshot)
            // A key written with an escape could read as "snapshot" too: not sure, so no.
            if !isSnapshot, bytes[key].contains(UInt8(ascii: "\\")) { return nil }
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let value = skipValue() else { return nil }
            if isSnapshot {
                guard snapshot == nil else { return nil }
                snapshot = value
            }
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            break
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count else { return nil }
        return snapshot
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
