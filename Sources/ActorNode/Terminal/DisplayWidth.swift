/// How many terminal columns text takes: CJK and other wide characters and emoji take two,
/// combining marks and other zero-width characters none, control characters none, the rest
/// one. Measured per grapheme cluster (what a person sees as one character), so "é" written
/// as e + accent is one column and "👍🏽" is two.
package enum DisplayWidth {
    package static func of(_ character: Character) -> Int {
        var width = 0
        for scalar in character.unicodeScalars {
            let value = scalar.value
            if value == 0xFE0F {
                // Emoji presentation selector: the cluster is shown as a (wide) emoji.
                width = 2
                continue
            }
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format, .control:
                continue
            default:
                break
            }
            if (properties.isEmojiPresentation && value >= 0x2000) || isWide(value) {
                width = 2
            } else {
                width = max(width, 1)
            }
        }
        return width
    }

    /// How many columns `text` takes: the sum of its characters'.
    /// - Parameter text: any text.
    package static func of(_ text: some StringProtocol) -> Int {
        // Printable ASCII (most text) is a column a byte, without looking at any character.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + of($1) }
    }

    /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth W and F, the common blocks).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100 ... 0x115F, 0x231A ... 0x231B, 0x2329 ... 0x232A, 0x2E80 ... 0x303E,
             0x3041 ... 0x33FF, 0x3400 ... 0x4DBF, 0x4E00 ... 0x9FFF, 0xA000 ... 0xA4CF,
             0xA960 ... 0xA97F, 0xAC00 ... 0xD7A3, 0xF900 ... 0xFAFF, 0xFE10 ... 0xFE19,
             0xFE30 ... 0xFE6F, 0xFF00 ... 0xFF60, 0xFFE0 ... 0xFFE6, 0x1B000 ... 0x1B2FF,
             0x1F200 ... 0x1F2FF, 0x1F300 ... 0x1F64F, 0x1F900 ... 0x1F9FF, 0x20000 ... 0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` columns, ending in "…" when something was cut; never splits
    /// a character, so a wide character that would straddle the edge is left out.
    package static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = of(character)
            if used + next > width - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` cut or padded with spaces to exactly `width` columns.
    package static func fit(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }
}
