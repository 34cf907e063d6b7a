/// Small helpers for the sentences CAMA's tools print.
public enum Wording {
    /// A count with its noun, singular for one: "1 record", "3 records".
    public static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// Items in a sentence: "always, batch or never" (with "or"), "a and b", "a".
    /// - Parameters:
    ///   - items: the items, in order.
    ///   - conjunction: the word before the last one: "and", "or".
    package static func list(_ items: [String], _ conjunction: String) -> String {
        guard let last = items.last, items.count > 1 else { return items.last ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// How wide `--help` texts are where they are wrapped: the lines that hold an app's paths,
    /// whose length comes with its name (the hand-written lines beside them are as wide).
    package static let helpWidth = 92

    /// `text` broken at its spaces into lines of at most `width` characters (a longer word
    /// gets a line of its own).
    /// - Parameters:
    ///   - text: one paragraph.
    ///   - width: the most characters a line may have.
    package static func wrap(_ text: String, width: Int) -> [String] {
        wrap(text.split(separator: " ").map(String.init), width: width)
    }

    /// `items` joined with single spaces into lines of at most `width` characters, breaking
    /// only between items (`[--fsync always|batch|never]` stays whole).
    /// - Parameters:
    ///   - items: the words or groups of words, in order.
    ///   - width: the most characters a line may have.
    package static func wrap(_ items: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for item in items {
            if !line.isEmpty, line.count + 1 + item.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? item : " " + item
        }
        return lines + [line]
    }
}
