/// Splits a typed line into words the way a POSIX shell would for simple input:
/// whitespace separates, '...' is literal, "..." allows \" and \\, and a backslash outside
/// quotes escapes the next character. `add "buy milk"` gives ["add", "buy milk"].
package enum Words {
    /// A quote opened and never closed.
    package struct UnterminatedQuote: Error, CustomStringConvertible {
        package var quote: Character
        package var description: String { "unterminated \(quote) quote" }
    }

    /// `words` with `separator` between them: what `joined(separator:)` gives, without the
    /// stdlib's unspecialized generic version, whose first call in a process (a one-shot
    /// `send`'s verb) costs the runtime 130,000 instructions of type lookups.
    /// - Parameters:
    ///   - words: the words.
    ///   - separator: what goes between two words.
    package static func join(_ words: ArraySlice<String>, separator: String) -> String {
        // By index, not generic iteration: nothing for the runtime to look up.
        var text = ""
        var index = words.startIndex
        while index < words.endIndex {
            if index > words.startIndex { text += separator }
            text += words[index]
            index += 1
        }
        return text
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
