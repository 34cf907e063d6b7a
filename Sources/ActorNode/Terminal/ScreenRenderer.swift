/// One line of a frame: a key saying what it shows (for people and tests), its text, and how
/// it is drawn.
package struct ScreenLine: Equatable, Sendable {
    package enum Style: Equatable, Sendable {
        case plain, selected, heading, dim
    }

    package var key: String
    package var text: String
    package var style: Style = .plain

    package init(key: String, text: String, style: Style = .plain) {
        self.key = key
        self.text = text
        self.style = style
    }
}

/// A whole screen: its lines, top to bottom, and where the cursor goes (when it is shown, for
/// text input).
package struct ScreenFrame: Equatable, Sendable {
    package var lines: [ScreenLine]
    package var cursor: (row: Int, column: Int)?

    package init(lines: [ScreenLine], cursor: (row: Int, column: Int)? = nil) {
        self.lines = lines
        self.cursor = cursor
    }

    package static func == (lhs: ScreenFrame, rhs: ScreenFrame) -> Bool {
        lhs.lines == rhs.lines && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
    }
}

/// Draws frames on a terminal, writing only the rows that changed since the last frame: a
/// change to one item costs about one line's worth of bytes, not the whole screen (as Neovim's
/// remote UIs and curses do).
package struct ScreenRenderer {
    private var previous: [ScreenLine] = []
    private var columns = 0

    /// The bytes that turn the screen from the last frame into `frame`. `columns` is the
    /// terminal's width; a new width redraws everything.
    package init() {}

    package mutating func update(to frame: ScreenFrame, columns: Int) -> String {
        var output = ""
        if columns != self.columns || frame.lines.count != previous.count {
            output += TerminalMode.Sequence.clearScreen
            previous = []
            self.columns = columns
        }
        for (row, line) in frame.lines.enumerated() where row >= previous.count || previous[row] != line {
            output += TerminalMode.Sequence.moveTo(row: row, column: 0)
            // The bottom-right cell is left alone: writing it makes some terminals scroll.
            let isLast = row == frame.lines.count - 1
            output += Self.styled(line, columns: isLast ? max(0, columns - 1) : columns)
        }
        previous = frame.lines
        if let cursor = frame.cursor {
            output += TerminalMode.Sequence.moveTo(row: cursor.row, column: cursor.column) + TerminalMode.Sequence.showCursor
        } else if !output.isEmpty {
            output += TerminalMode.Sequence.hideCursor
        }
        return output
    }

    /// Forgets the screen, so the next update draws everything (after a resize or a redraw key).
    package mutating func invalidate() {
        previous = []
        columns = 0
    }

    /// A row's bytes. A selected row is padded to the full width so its bar shows; any other
    /// row is its text (cut to fit) and an erase to the end of the line, so a short line costs
    /// only its own bytes.
    private static func styled(_ line: ScreenLine, columns: Int) -> String {
        typealias Sequence = TerminalMode.Sequence
        if line.style == .selected {
            return Sequence.reverse + DisplayWidth.fit(line.text, to: columns) + Sequence.resetAttributes
        }
        var text = Substring(DisplayWidth.truncate(line.text, to: columns))
        while text.last == " " { text = text.dropLast() }
        let style: String
        switch line.style {
        case .heading: style = Sequence.bold
        case .dim: style = Sequence.dim
        case .plain, .selected: style = ""
        }
        let body = text.isEmpty ? "" : style + text + Sequence.resetAttributes
        return body + Sequence.clearToEndOfLine
    }
}
