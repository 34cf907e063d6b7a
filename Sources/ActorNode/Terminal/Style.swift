/// How a row or a cell is drawn: bold, dim, reversed (the selection's bar), underlined, and at
/// most one of the terminal's eight colours. Kept to what every terminal shows alike, so a
/// screen reads the same in any of them; combine styles with `+` (`.bold + .color(.red)`).
public struct Style: Hashable, Sendable {
    /// The eight colours every terminal has (its palette decides their shades).
    public enum Color: Int, Hashable, Sendable {
        case black, red, green, yellow, blue, magenta, cyan, white
    }

    /// Heavier text.
    public var bold: Bool
    /// Fainter text.
    public var dim: Bool
    /// The colours swapped (the selection's bar).
    public var reverse: Bool
    /// Underlined text.
    public var underline: Bool
    /// The text's colour; nil for the terminal's own.
    public var color: Color?

    /// - Parameters:
    ///   - bold: heavier text, for titles and what matters most.
    ///   - dim: fainter text, for what matters least.
    ///   - reverse: the colours swapped; the kit draws the selected row so, across the width.
    ///   - underline: underlined text.
    ///   - color: one of the eight colours, or nil.
    public init(bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false, color: Color? = nil) {
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
        self.color = color
    }

    /// The terminal's own way of drawing.
    public static let plain = Style()
    /// Heavier text: titles, and what matters most.
    public static let bold = Style(bold: true)
    /// Fainter text: what matters least.
    public static let dim = Style(dim: true)
    /// The colours swapped.
    public static let reverse = Style(reverse: true)
    /// Underlined text.
    public static let underline = Style(underline: true)

    /// Text in one of the eight colours.
    /// - Parameter color: the colour.
    public static func color(_ color: Color) -> Style {
        Style(color: color)
    }

    /// Both styles at once; `rhs`'s colour wins when both have one.
    /// - Parameters:
    ///   - lhs: a style.
    ///   - rhs: another style.
    public static func + (lhs: Style, rhs: Style) -> Style {
        Style(bold: lhs.bold || rhs.bold, dim: lhs.dim || rhs.dim, reverse: lhs.reverse || rhs.reverse,
              underline: lhs.underline || rhs.underline, color: rhs.color ?? lhs.color)
    }

    /// The escape sequence (SGR) that starts drawing in this style from the plain one; empty
    /// for ``plain``.
    package var sequence: String {
        var codes: [String] = []
        if bold { codes.append("1") }
        if dim { codes.append("2") }
        if underline { codes.append("4") }
        if reverse { codes.append("7") }
        if let color { codes.append(String(30 + color.rawValue)) }
        return codes.isEmpty ? "" : "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
