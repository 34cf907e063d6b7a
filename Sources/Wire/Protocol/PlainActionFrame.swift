/// The envelope of an action message in its plain form, found by one pass over the bytes
/// without building a tree: `{"action":{"client":"…","seq":N,"action":…}}`, its three members
/// in any order, with or without whitespace. The core reads most frames this way; it then
/// parses only the action itself, and can copy the action's text as it came (into its journal).
///
/// It only ever says yes to text the strict reader takes the same way, once the action's own
/// bytes parse: anything it is not sure of (an escape or a non-ASCII byte in the client id, a
/// seq that is not a plain whole number from 1 to 2^63-1, another member, a repeated one) is
/// nil, and the caller reads the frame the general way, which also says what is wrong.
package struct PlainActionFrame: Sendable, Equatable {
    /// The action's sequence number.
    package var seq: UInt64
    /// Where the action's JSON is in the frame.
    package var action: Range<Int>

    /// Finds the envelope in `bytes`, a frame's payload.
    /// - Parameter bytes: the payload.
    /// - Returns: the seq and where the action is, or nil if this is not an action in its plain
    ///   form.
    package static func scan(_ bytes: [UInt8]) -> PlainActionFrame? {
        scan(bytes[...])
    }

    /// Finds the envelope in `bytes`, a frame's payload as a slice of what was received.
    /// - Parameter bytes: the payload.
    /// - Returns: the seq and where the action is (as indices of `bytes`), or nil if this is
    ///   not an action in its plain form.
    package static func scan(_ bytes: ArraySlice<UInt8>) -> PlainActionFrame? {
        let found = bytes.withUnsafeBufferPointer { buffer in
            var scanner = FrameScanner(bytes: buffer)
            return scanner.plainAction()
        }
        guard var found else { return nil }
        found.action = found.action.lowerBound + bytes.startIndex ..< found.action.upperBound + bytes.startIndex
        return found
    }
}

/// Reads an action's envelope by the structure of its text.
extension FrameScanner {
    static var actionKey: StaticString { #""action""# }
    static var clientKey: StaticString { #""client""# }
    static var seqKey: StaticString { #""seq""# }

    mutating func plainAction() -> PlainActionFrame? {
        guard take(UInt8(ascii: "{")), takeKey(Self.actionKey), take(UInt8(ascii: "{")) else { return nil }
        var seq: UInt64?
        var action: Range<Int>?
        var sawClient = false
        for member in 0 ..< 3 {
            if member > 0, !take(UInt8(ascii: ",")) { return nil }
            skipWhitespace()
            // The three keys differ in their first letter: only that one is tried.
            guard position + 1 < bytes.count else { return nil }
            switch bytes[position + 1] {
            case UInt8(ascii: "c"):
                guard !sawClient, takeKey(Self.clientKey) else { return nil }
                skipWhitespace()
                guard skipPlainString() != nil else { return nil }
                sawClient = true
            case UInt8(ascii: "s"):
                guard seq == nil, takeKey(Self.seqKey), let number = sequenceNumber() else { return nil }
                seq = number
            case UInt8(ascii: "a"):
                guard action == nil, takeKey(Self.actionKey) else { return nil }
                skipWhitespace()
                guard let range = skipValue() else { return nil }
                action = range
            default:
                return nil
            }
        }
        guard take(UInt8(ascii: "}")), take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count, sawClient, let seq, let action else { return nil }
        return PlainActionFrame(seq: seq, action: action)
    }

    /// 1 to 2^63-1, written plainly (no sign, leading zero, fraction or exponent). A seq of 0
    /// is refused, which the general reader says.
    private mutating func sequenceNumber() -> UInt64? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] &- UInt8(ascii: "1") < 9 else { return nil }
        var value: UInt64 = 0
        // Up to 18 digits cannot pass 2^63-1: taken without a check each.
        let plainEnd = min(bytes.count, position + 18)
        while position < plainEnd, bytes[position] &- UInt8(ascii: "0") <= 9 {
            value = value &* 10 &+ UInt64(bytes[position] &- UInt8(ascii: "0"))
            position += 1
        }
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") <= 9 {
            // Both steps checked: 2^64 (1844674407370955161 × 10, then + 6) overflows only
            // at the addition of its last digit.
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
            position += 1
        }
        guard value <= UInt64(Int64.max) else { return nil }
        if position < bytes.count, Self.continuesANumber(bytes[position]) { return nil }
        return value
    }
}
