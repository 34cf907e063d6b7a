/// Splits a typed line into words the way a POSIX shell would for simple input:
/// whitespace separates, '...' is literal, "..." allows \" and \\, and a backslash outside
/// quotes escapes the next character. `add "buy milk"` gives ["add", "buy milk"].
package enum Words {
    /// A quote opened and never closed.
    package struct UnterminatedQuote: Error, CustomStringConvertible {
        package var quote: Character
        package var description: String { "unterminated \(quote) quote" }
    }

    /// The words of `line`.
    /// - Parameter line: a typed line.
    package static func split(_ line: String) throws(UnterminatedQuote) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
                inWord = true
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\", open == "\"" {
                    escaped = true
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                escaped = true
            case _ where character.isWhitespace:
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            default:
                current.append(character)
                inWord = true
            }
        }
        if let quote { throw UnterminatedQuote(quote: quote) }
        if escaped { current.append("\\") }
        if inWord || escaped { words.append(current) }
        return words
    }
}
