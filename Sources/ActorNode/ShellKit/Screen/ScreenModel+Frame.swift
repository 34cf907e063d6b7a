extension ScreenModel {
    /// The frame for a terminal of `rows` x `columns` (Elm's view, Shohin's render): the app's
    /// rows on top, the list (only the rows on screen are made), the app's rows below, the input
    /// line, and the status line (or the prompt, or the question). Smaller screens drop the rows
    /// below the list, then those on top; every line is cut to the width by display columns. The
    /// scroll positions it settles on are kept for the next frame and for paging.
    /// - Parameters:
    ///   - rows: the terminal's height.
    ///   - columns: the terminal's width.
    package mutating func frame(rows: Int, columns: Int) -> ScreenFrame {
        let rows = max(1, rows)
        let columns = max(1, columns)
        let screen = view()
        let hasInput = App.input != nil && rows >= 2
        let bottom = hasInput ? 2 : 1
        let footer = screen.map { rows >= bottom + $0.footer.count + 1 ? $0.footer : [] } ?? []
        let header = screen.map { rows >= bottom + footer.count + $0.header.count + 2 ? $0.header : [] } ?? []
        let listRows = max(0, rows - bottom - footer.count - header.count)
        page = max(1, listRows)

        var lines = header.enumerated().map { ScreenLine(key: "header-\($0.offset)", row: $0.element, columns: columns) }
        let listTop = lines.count
        var scrollRegion: Range<Int>?
        if case .help = mode {
            lines += helpLines(rows: listRows, columns: columns)
        } else if let list = screen?.list {
            lines += listLines(list, rows: listRows, columns: columns)
            scrollRegion = listTop ..< listTop + listRows
        } else {
            lines += (0 ..< listRows).map { ScreenLine(key: "empty-\($0)", spans: []) }
        }
        lines += footer.enumerated().map { ScreenLine(key: "footer-\($0.offset)", row: $0.element, columns: columns) }

        var cursorAt: (row: Int, column: Int)?
        if hasInput, let input = App.input {
            let (text, column) = inputLine.visible(after: " " + input.label, columns: columns)
            if case .normal = mode { cursorAt = (lines.count, column) }
            lines.append(ScreenLine(key: "input", spans: [.init(text)]))
        }
        let (status, statusCursor) = statusLine(columns: columns)
        if let statusCursor { cursorAt = (lines.count, statusCursor) }
        lines.append(ScreenLine(key: "status", spans: [.init(status)], style: message?.isError == true ? .bold : .dim))
        return ScreenFrame(lines: lines, cursor: cursorAt, scrollRegion: scrollRegion)
    }

    /// The list's rows on screen, from the first the cursor settles on; the selected row
    /// reversed; blank rows below the last. A row the app gives as it was in the last frame
    /// keeps the line it was laid out as (Shohin's keyed render: only what changed is laid out
    /// again, and only what looks different is drawn again).
    private mutating func listLines(_ list: RowList<App.RowID>, rows: Int, columns: Int) -> [ScreenLine] {
        let first = cursor.settle(list, rows: rows)
        var lines: [ScreenLine] = []
        lines.reserveCapacity(rows)
        var kept: [App.RowID: (row: Row, columns: Int, line: ScreenLine)] = [:]
        kept.reserveCapacity(rows)
        defer { laidOut = kept }
        for row in 0 ..< rows {
            let index = first + row
            guard index < list.count else {
                let text = index == 0 && row == 0 ? list.empty ?? "" : ""
                lines.append(ScreenLine(key: "empty-\(row)", text: text, style: .dim, columns: columns))
                continue
            }
            let selected = list.kind == .selecting && index == cursor.selectedIndex
            var drawn = list.row(index, selected)
            if selected { drawn.style = drawn.style + .reverse }
            let key = list.key(index)
            let line: ScreenLine
            if let last = laidOut[key], last.columns == columns, last.row == drawn {
                line = last.line
            } else {
                line = ScreenLine(key: AnyHashable(ListRowKey(id: key)), row: drawn, columns: columns)
            }
            kept[key] = (drawn, columns, line)
            lines.append(line)
        }
        return lines
    }

    /// The bottom line: the prompt being typed (and the cursor's column in it), the question, the
    /// last message, or the status: socket, connection, revision, shells attached.
    private func statusLine(columns: Int) -> (String, Int?) {
        switch mode {
        case let .prompt(prompt):
            let line = promptLines[prompt.label] ?? InputLine()
            let (text, cursor) = line.visible(after: " " + prompt.label, columns: columns)
            return (text, cursor)
        case let .confirm(question, _):
            return (DisplayWidth.truncate(" \(PeerText.escaped(question)) (y/n)", to: columns), nil)
        case .help, .normal:
            if let message {
                return (DisplayWidth.truncate(" " + PeerText.escaped(message.text), to: columns), nil)
            }
            let connection: String
            switch self.connection {
            case .connected: connection = "connected"
            // The announcement's "reconnecting" or "reconnecting to HOST" (the message line
            // has the rest).
            case let .reconnecting(announcement): connection = Self.reconnectingLabel(announcement) + "…"
            }
            let text = " \(PeerText.escaped(socket)) · \(connection) · r\(revision) · \(Wording.count(shells, "shell")) · ? help"
            return (DisplayWidth.truncate(text, to: columns), nil)
        }
    }
}

extension ScreenModel {
    /// "reconnecting" or "reconnecting to HOST", from a client's announcement
    /// ("REASON; reconnecting to HOST", "still reconnecting to HOST: WHY").
    static func reconnectingLabel(_ announcement: String) -> String {
        guard let start = announcement.firstRange(of: "reconnecting")?.lowerBound else { return "reconnecting" }
        let clause = announcement[start...]
        return String(clause[..<(clause.firstRange(of: ": ")?.lowerBound ?? clause.endIndex)])
    }

    /// The message line for an announcement: the loss and that it is reconnecting; later, why
    /// the last try failed, first (the status line says it is still reconnecting).
    static func reconnectingMessage(_ announcement: String) -> String {
        guard announcement.hasPrefix("still reconnecting"), let colon = announcement.firstRange(of: ": ") else { return announcement + "…" }
        return String(announcement[colon.upperBound...])
    }
}

/// A list row's key among a frame's lines (which the header's, the footer's and the kit's own
/// lines cannot be, whatever the app's keys are).
private struct ListRowKey<ID: Hashable>: Hashable {
    let id: ID
}
