/// The escape sequences the kit writes to a terminal: the VT100 and xterm ones every terminal
/// emulator in use understands (tmux, screen and the Linux console among them).
package enum TerminalSequence {
    package static let enterAlternateScreen = "\u{1B}[?1049h"
    package static let leaveAlternateScreen = "\u{1B}[?1049l"
    package static let hideCursor = "\u{1B}[?25l"
    package static let showCursor = "\u{1B}[?25h"
    package static let clearScreen = "\u{1B}[2J"
    package static let home = "\u{1B}[H"
    package static let clearToEndOfLine = "\u{1B}[K"
    package static let resetAttributes = "\u{1B}[0m"
    /// Down a line; at the bottom of the scrolling region, the region's lines move up one (IND).
    package static let index = "\u{1B}D"
    /// Up a line; at the top of the scrolling region, the region's lines move down one (RI).
    package static let reverseIndex = "\u{1B}M"
    /// The whole screen scrolls again (DECSTBM without margins; the cursor goes home).
    package static let resetScrollRegion = "\u{1B}[r"

    /// Moves the cursor to a row and a column, both from 0.
    /// - Parameters:
    ///   - row: the row, 0 at the top.
    ///   - column: the column, 0 at the left.
    package static func moveTo(row: Int, column: Int) -> String {
        "\u{1B}[\(row + 1);\(column + 1)H"
    }

    /// Only `rows` scroll from now on (DECSTBM; the cursor goes home).
    /// - Parameter rows: the rows, from 0, at least two.
    package static func scrollRegion(_ rows: Range<Int>) -> String {
        "\u{1B}[\(rows.lowerBound + 1);\(rows.upperBound)r"
    }
}
