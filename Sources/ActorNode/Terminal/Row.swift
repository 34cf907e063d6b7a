/// One line of a full screen, as an app's view gives it: cells left to right, and a style for
/// the whole line. The kit cuts it to the terminal's width (a cell that ``Cell/fills`` gives
/// way first, else the end of the line, with "…") and escapes its text.
public struct Row: Hashable, Sendable {
    /// The cells, left to right.
    public var cells: [Cell]
    /// The whole row's style, under each cell's own.
    public var style: Style

    /// - Parameters:
    ///   - cells: the cells, left to right.
    ///   - style: the whole row's style, under each cell's own.
    public init(_ cells: [Cell], _ style: Style = .plain) {
        self.cells = cells
        self.style = style
    }

    /// A row of one cell.
    /// - Parameters:
    ///   - text: the text, any text (it is escaped when drawn).
    ///   - style: how it is drawn.
    public init(_ text: String, _ style: Style = .plain) {
        self.init([Cell(text)], style)
    }
}
