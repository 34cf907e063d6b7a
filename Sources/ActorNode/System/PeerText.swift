/// Text that came from another process (a client's name, a core's state, a reason), made safe
/// to show: on a terminal it can neither move the cursor nor change colours, and in a log it can
/// neither start a forged line nor flood the file.
public enum PeerText {
    /// `text` with every control character written as a visible escape: `\n`, `\r`, `\t`, and
    /// `\x1b`-style for the other C0 controls, DEL and the C1 controls (U+0080 to U+009F, which
    /// some terminals also obey). Everything else is kept as it is.
    /// - Parameter text: text from a peer.
    public static func escaped(_ text: String) -> String {
        // Printable ASCII needs nothing, and is told by its bytes (decoding the scalars of
        // every item's text cost a one-shot `state` 3% of its instructions).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// ``escaped(_:)``, cut to at most `limit` bytes of the original's UTF-8 (between two
    /// Unicode scalars) with a note of how much was left out, for one line of a log. Only the
    /// kept part is ever scanned, so a huge text costs no more than a short one.
    /// - Parameters:
    ///   - text: text from a peer.
    ///   - limit: the most bytes of `text` to keep.
    package static func forLog(_ text: String, limit: Int = 200) -> String {
        let utf8 = text.utf8
        let total = utf8.count
        guard total > limit else { return escaped(text) }
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        // Step back over continuation bytes (10xxxxxx) to the start of a scalar.
        while end > utf8.startIndex, utf8[end] & 0xc0 == 0x80 {
            end = utf8.index(before: end)
        }
        let kept = String(String.UnicodeScalarView(text.unicodeScalars[..<end]))
        return escaped(kept) + "…(\(total - kept.utf8.count) more bytes)"
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7f ... 0x9f).contains(scalar.value)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default:
            let hex = String(scalar.value, radix: 16)
            return scalar.value < 0x100 ? "\\x" + (hex.count == 1 ? "0" : "") + hex : "\\u{\(hex)}"
        }
    }
}
