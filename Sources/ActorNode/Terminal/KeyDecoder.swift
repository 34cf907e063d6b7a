/// Turns the bytes read from a terminal in raw mode into keys: UTF-8 characters, the control
/// keys, and the escape sequences of arrows and editing keys (both the CSI `ESC [` and SS3
/// `ESC O` forms). A lone ESC is the Escape key once nothing follows it quickly: the caller
/// calls ``flushEscape()`` after a short pause.
package struct KeyDecoder {
    private var pending: [UInt8] = []

    package init() {}

    /// Feeds bytes; returns the keys they complete (what is left of an unfinished sequence or
    /// character waits for the next bytes).
    /// - Parameter bytes: bytes read from the terminal.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var start = 0
        while let (key, used) = decodeOne(from: start) {
            start += used
            if let key { keys.append(key) }
        }
        // Once per read, not once per key: a paste of many keys costs its length.
        pending.removeFirst(start)
        return keys
    }

    /// Whether a lone ESC (or an unfinished sequence) is waiting.
    package var hasPendingEscape: Bool { pending.first == 0x1B }

    /// After a pause: a lone ESC is the Escape key; an unfinished sequence is dropped.
    package mutating func flushEscape() -> [Key] {
        guard pending.first == 0x1B else { return [] }
        let lone = pending.count == 1
        pending.removeAll()
        return lone ? [.escape] : []
    }

    /// The next key and the bytes it used; nil when more bytes are needed.
    private func decodeOne(from start: Int) -> (Key?, Int)? {
        guard start < pending.count else { return nil }
        let first = pending[start]
        switch first {
        case 0x1B:
            return decodeEscape(pending[start...])
        case 0x0D, 0x0A:
            return (.enter, 1)
        case 0x7F, 0x08:
            return (.backspace, 1)
        case 0x09:
            return (.tab, 1)
        case 0x01 ... 0x1A:
            return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x00, 0x1C ... 0x1F:
            return (nil, 1)
        default:
            return decodeUTF8(pending[start...])
        }
    }

    private func decodeEscape(_ pending: ArraySlice<UInt8>) -> (Key?, Int)? {
        guard pending.count >= 2 else { return nil }
        let base = pending.startIndex
        let second = pending[base + 1]
        guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else {
            // ESC then another key (Alt-key): report Escape, and the key on its own next time.
            return (.escape, 1)
        }
        // Find the final byte of the sequence (0x40...0x7E after parameters).
        var index = 2
        while index < pending.count, !(0x40 ... 0x7E).contains(pending[base + index]) {
            index += 1
        }
        guard index < pending.count else { return pending.count > 16 ? (nil, pending.count) : nil }
        let final = pending[base + index]
        let parameters = String(decoding: pending[base + 2 ..< base + index], as: UTF8.self)
        let used = index + 1
        switch final {
        case UInt8(ascii: "A"): return (.up, used)
        case UInt8(ascii: "B"): return (.down, used)
        case UInt8(ascii: "C"): return (.right, used)
        case UInt8(ascii: "D"): return (.left, used)
        case UInt8(ascii: "H"): return (.home, used)
        case UInt8(ascii: "F"): return (.end, used)
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return (.home, used)
            case "4", "8": return (.end, used)
            case "3": return (.delete, used)
            case "5": return (.pageUp, used)
            case "6": return (.pageDown, used)
            default: return (nil, used)
            }
        default:
            return (nil, used)
        }
    }

    private func decodeUTF8(_ pending: ArraySlice<UInt8>) -> (Key?, Int)? {
        let base = pending.startIndex
        let first = pending[base]
        let length: Int
        switch first {
        case 0x00 ..< 0x80: length = 1
        case 0xC0 ..< 0xE0: length = 2
        case 0xE0 ..< 0xF0: length = 3
        case 0xF0 ..< 0xF8: length = 4
        default: return (nil, 1)
        }
        guard pending.count >= length else { return nil }
        let text = String(decoding: pending[base ..< base + length], as: UTF8.self)
        guard let character = text.first else { return (nil, length) }
        return (.character(character), length)
    }
}
