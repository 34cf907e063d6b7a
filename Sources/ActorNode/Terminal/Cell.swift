/// A piece of a row's text, in one style. The kit escapes its text when it draws it (see
/// ``PeerText``), so text from other clients can be put in a cell as it came: it can neither
/// move the cursor nor change colours. Widths are display widths: a wide character takes two
/// columns and is never cut in half.
public struct Cell: Hashable, Sendable {
    /// The text, as it came (escaped when drawn).
    public var text: String
    /// How it is drawn, over its row's style.
    public var style: Style
    /// Whether the cell takes the width the row's other cells leave: cut to it with "…", or
    /// padded with spaces to it, so that the cells after it line up at the right edge.
    public var fills: Bool

    /// A cell as wide as its text.
    /// - Parameters:
    ///   - text: the text, any text (it is escaped when drawn).
    ///   - style: how it is drawn within its row.
    public init(_ text: String, _ style: Style = .plain) {
        self.text = text
        self.style = style
        fills = false
    }

    /// A cell that takes the width left by the row's other cells (the first such cell of a row
    /// does; a later one is as wide as its text).
    /// - Parameters:
    ///   - text: the text, any text (it is escaped when drawn).
    ///   - style: how it is drawn within its row.
    public static func fill(_ text: String, _ style: Style = .plain) -> Cell {
        var cell = Cell(text, style)
        cell.fills = true
        return cell
    }
}
