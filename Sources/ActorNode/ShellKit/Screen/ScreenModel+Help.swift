extension ScreenModel {
    /// The help on `?`: its heading, then a line per key: the kit's keys for moving, the app's
    /// keys and its input line's words, and the kit's keys for redrawing and quitting. Each line
    /// is what to type, in a column of 12 (or as wide as the longest with two spaces), then what
    /// it does.
    /// - Parameter kind: how the list is moved through.
    package static func helpText(for kind: RowList<App.RowID>.Kind) -> [String] {
        var entries: [(String, String)] = []
        switch (App.input, kind) {
        case (nil, .selecting):
            entries.append(("↑ ↓ or j k", "move the selection"))
        case (nil, .tail):
            entries += [("↑ ↓ or j k", "scroll"), ("PgUp PgDn", "scroll a page"), ("Home End", "the oldest, the newest")]
        default:
            break
        }
        entries += App.keys.compactMap { binding in binding.help.map { (binding.label, $0) } }
        if let input = App.input {
            entries += input.help.map { ($0.typed, $0.does) }
            entries += [
                ("← → Home End", "move in the line (Ctrl-A, Ctrl-E; Ctrl-U empties it)"),
                ("↑ ↓", "the lines sent before"),
                ("PgUp PgDn", "scroll (Esc: back to the newest)"),
            ]
        }
        entries.append(("Ctrl-L", "redraw"))
        entries.append(App.input == nil ? ("q", "quit") : ("Ctrl-C", "quit"))
        let column = max(12, (entries.map(\.0.count).max() ?? 0) + 2)
        return ["keys (? Esc q close this)"] + entries.map { typed, does in
            typed + String(repeating: " ", count: column - typed.count) + does
        }
    }

    /// The first line of the help's body shown on `rows` rows: within what keeps them full.
    /// - Parameters:
    ///   - wanted: the first line asked for.
    ///   - lines: the help's lines, its heading's included.
    ///   - rows: the rows the help has, its heading's included.
    package static func helpScrollPosition(_ wanted: Int, lines: Int, rows: Int) -> Int {
        min(max(0, wanted), max(0, lines - 1 - max(0, rows - 1)))
    }

    /// The help over the list: its heading, then as much of the keys as fits, from line
    /// ``helpScroll`` of its body (↑ ↓ while it is open) when the screen is too short for all of
    /// them; the position is kept within its bounds.
    mutating func helpLines(rows: Int, columns: Int) -> [ScreenLine] {
        guard rows > 0 else { return [] }
        let text = Self.helpText(for: view()?.list.kind ?? .selecting)
        let body = text.dropFirst()
        let bodyRows = rows - 1
        let fits = body.count <= bodyRows
        helpScroll = Self.helpScrollPosition(helpScroll, lines: text.count, rows: rows)
        let heading = fits ? text[0] : "keys (↑ ↓ scroll; ? Esc q close this)"
        var lines = [ScreenLine(key: "help-0", text: "  " + heading, style: .bold, columns: columns)]
        for row in 0 ..< bodyRows {
            let index = body.startIndex + helpScroll + row
            lines.append(ScreenLine(key: "help-\(row + 1)", text: index < body.endIndex ? "  " + body[index] : "", columns: columns))
        }
        return lines
    }
}
