/// Draws frames on a terminal, writing only what changed since the last frame: a change to one
/// row costs about one line's worth of bytes, not the whole screen (as Neovim's remote UIs and
/// curses do). Lines carry their rows' keys, so when the list's rows moved up or down together
/// (a new message at the bottom of a chat, a list scrolled by one), the renderer scrolls them on
/// the terminal (a scrolling region and an index) and draws only the rows that came in, as
/// curses does with its scrolling optimization.
package struct ScreenRenderer {
    private var previous: [ScreenLine] = []
    private var previousRegion: Range<Int>?
    private var columns = 0

    package init() {}

    /// The bytes that turn the screen from the last frame into `frame`.
    /// - Parameters:
    ///   - frame: the new frame.
    ///   - columns: the terminal's width; a new width redraws everything.
    package mutating func update(to frame: ScreenFrame, columns: Int) -> String {
        var output = ""
        if columns != self.columns || frame.lines.count != previous.count {
            output += TerminalSequence.clearScreen
            previous = []
            self.columns = columns
        } else if let region = frame.scrollRegion, region == previousRegion {
            output += scroll(region, toward: frame)
        }
        for (row, line) in frame.lines.enumerated() where row >= previous.count || !previous[row].looksLike(line) {
            output += TerminalSequence.moveTo(row: row, column: 0)
            // The bottom-right cell is left alone: writing it makes some terminals scroll.
            let isLast = row == frame.lines.count - 1
            output += Self.styled(line, columns: isLast ? max(0, columns - 1) : columns)
        }
        previous = frame.lines
        previousRegion = frame.scrollRegion
        if let cursor = frame.cursor {
            output += TerminalSequence.moveTo(row: cursor.row, column: cursor.column) + TerminalSequence.showCursor
        } else if !output.isEmpty {
            output += TerminalSequence.hideCursor
        }
        return output
    }

    /// Forgets the screen, so the next update draws everything (after a resize or a redraw key).
    package mutating func invalidate() {
        previous = []
        previousRegion = nil
        columns = 0
    }

    /// When the rows of `region` moved together since the last frame (found by their keys) and
    /// more lines are in place after moving them, scrolls them on the terminal and returns the
    /// bytes that do it; the last frame is moved alike, the rows that came in blank.
    private mutating func scroll(_ region: Range<Int>, toward frame: ScreenFrame) -> String {
        guard region.count >= 2, region.upperBound <= previous.count, region.upperBound <= frame.lines.count else { return "" }
        let top = region.lowerBound
        var shift = 0
        if let index = previous[region].firstIndex(where: { $0.key == frame.lines[top].key }), index > top {
            // The first row shown was lower: the rows moved up.
            shift = index - top
        } else if let index = frame.lines[region].firstIndex(where: { $0.key == previous[top].key }), index > top {
            shift = top - index
        }
        guard shift != 0, abs(shift) < region.count else { return "" }
        var inPlace = 0
        var inPlaceAfter = 0
        for row in region {
            if previous[row].looksLike(frame.lines[row]) { inPlace += 1 }
            if region.contains(row + shift), previous[row + shift].looksLike(frame.lines[row]) { inPlaceAfter += 1 }
        }
        guard inPlaceAfter > inPlace else { return "" }
        var output = TerminalSequence.scrollRegion(region)
        let blank = ScreenLine(key: AnyHashable(ScrolledIn()), spans: [])
        if shift > 0 {
            output += TerminalSequence.moveTo(row: region.upperBound - 1, column: 0) + String(repeating: TerminalSequence.index, count: shift)
        } else {
            output += TerminalSequence.moveTo(row: top, column: 0) + String(repeating: TerminalSequence.reverseIndex, count: -shift)
        }
        var moved = previous
        for row in region {
            moved[row] = region.contains(row + shift) ? previous[row + shift] : blank
        }
        previous = moved
        return output + TerminalSequence.resetScrollRegion
    }

    /// The key of a row the terminal scrolled in: blank, and no row of any frame.
    private struct ScrolledIn: Hashable {}

    /// A row's bytes. A reversed row is padded to the full width so its bar shows; any other
    /// row is its text (cut to fit, trailing spaces left out) and an erase to the end of the
    /// line, so a short line costs only its own bytes. Attributes are reset at the end of every
    /// line, so the terminal draws each row, and the rows it scrolls in, from the plain style.
    private static func styled(_ line: ScreenLine, columns: Int) -> String {
        var spans = ScreenLine.cut(line.spans, to: columns)
        if line.style.reverse {
            let width = spans.reduce(0) { $0 + DisplayWidth.of($1.text) }
            if width < columns { spans.append(.init(String(repeating: " ", count: columns - width))) }
            return drawn(spans, in: line.style) + TerminalSequence.resetAttributes
        }
        while let last = spans.last, last.text.last == " " || last.text.isEmpty {
            var text = Substring(last.text)
            while text.last == " " { text = text.dropLast() }
            if text.isEmpty {
                spans.removeLast()
            } else {
                spans[spans.count - 1].text = String(text)
            }
        }
        let body = spans.isEmpty ? "" : drawn(spans, in: line.style) + TerminalSequence.resetAttributes
        return body + TerminalSequence.clearToEndOfLine
    }

    /// The spans' text, each after the sequence of its style on the line's.
    private static func drawn(_ spans: [ScreenLine.Span], in lineStyle: Style) -> String {
        var output = ""
        var current = Style.plain
        for span in spans {
            let style = lineStyle + span.style
            if style != current {
                if current != .plain { output += TerminalSequence.resetAttributes }
                output += style.sequence
                current = style
            }
            output += span.text
        }
        return output
    }
}
