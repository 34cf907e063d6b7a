/// What a full screen shows of a state (``ScreenApp/view(_:_:)``): rows on top (a title), a
/// list that takes the height left, and rows below it (a summary). The kit adds the input line
/// and the status line at the bottom. On a short terminal the rows below go first, then the
/// rows on top, so that the list keeps two rows, and at least one.
public struct Screen<RowID: Hashable> {
    /// Rows above the list (a title).
    public var header: [Row]
    /// The list, taking the height left.
    public var list: RowList<RowID>
    /// Rows below the list (a summary).
    public var footer: [Row]

    /// - Parameters:
    ///   - header: rows above the list.
    ///   - list: the list.
    ///   - footer: rows below the list.
    public init(header: [Row] = [], list: RowList<RowID>, footer: [Row] = []) {
        self.header = header
        self.list = list
        self.footer = footer
    }
}

extension Screen {
    /// The screen as lines of text, as ``ScreenApp/render(_:revision:)`` gives it by default:
    /// `revision R`, the header, every row of the list (or what it shows when empty), the footer.
    /// - Parameter revision: the state's revision.
    package func text(revision: UInt64) -> String {
        var text = "revision \(revision)\n"
        func add(_ row: Row) {
            let line = row.cells.map { PeerText.escaped($0.text) }.joined()
            text += String(line.reversed().drop { $0 == " " }.reversed()) + "\n"
        }
        header.forEach(add)
        if list.count == 0, let empty = list.empty { add(Row(empty)) }
        for index in 0 ..< list.count { add(list.row(index, false)) }
        footer.forEach(add)
        return text
    }
}

