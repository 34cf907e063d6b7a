/// A whole screen: its lines, top to bottom; where the cursor goes (when it is shown, for text
/// input); and the rows of the list, whose lines may move up or down together (a list that
/// scrolled), which the renderer can scroll on the terminal instead of drawing them again.
package struct ScreenFrame: Equatable {
    package var lines: [ScreenLine]
    package var cursor: (row: Int, column: Int)?
    package var scrollRegion: Range<Int>?

    /// - Parameters:
    ///   - lines: the lines, top to bottom.
    ///   - cursor: where the cursor is shown, if it is.
    ///   - scrollRegion: the list's rows, if any.
    package init(lines: [ScreenLine], cursor: (row: Int, column: Int)? = nil, scrollRegion: Range<Int>? = nil) {
        self.lines = lines
        self.cursor = cursor
        self.scrollRegion = scrollRegion
    }

    package static func == (lhs: ScreenFrame, rhs: ScreenFrame) -> Bool {
        lhs.lines == rhs.lines && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
            && lhs.scrollRegion == rhs.scrollRegion
    }
}
