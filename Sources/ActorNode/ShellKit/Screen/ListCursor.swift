/// Where a full screen's list is looked at: the selected row (by key, and where it was) and the
/// first row shown; for a list shown from its end, whether the view follows the newest row and,
/// when it does not, the first row shown by key. Rows are found by key, so the selection and the
/// view stay on their rows when others are added or removed; where a row is looked up first is
/// where it was, so a change elsewhere costs no search of the list.
package struct ListCursor<ID: Hashable> {
    /// The selected row's key (a selecting list), nil when the list is empty.
    package var selected: ID?
    /// The selected row's index.
    package var selectedIndex = 0
    /// The first row shown.
    package var scroll = 0
    /// A list shown from its end: whether the view follows the newest row.
    package var followsEnd = true
    /// A list shown from its end and scrolled up: the first row shown, by key.
    package var top: ID?

    package init() {}

    /// After the list changed: the selection stays on its row, or takes the place of a row that
    /// went (the first row, to begin with); a view scrolled up stays on the rows it showed.
    /// - Parameter list: the new list.
    package mutating func follow(_ list: RowList<ID>) {
        switch list.kind {
        case .selecting:
            // Where it was, usually (a change elsewhere in the list): no search of the list.
            if let selected, selectedIndex < list.count, list.key(selectedIndex) == selected { return }
            if let selected, let index = list.index(of: selected, near: selectedIndex) {
                selectedIndex = index
                return
            }
            guard list.count > 0 else {
                selected = nil
                selectedIndex = 0
                return
            }
            selectedIndex = min(max(0, selectedIndex), list.count - 1)
            selected = list.key(selectedIndex)
        case .tail:
            guard !followsEnd, let top else { return }
            if scroll < list.count, list.key(scroll) == top { return }
            if let index = list.index(of: top, near: scroll) {
                scroll = index
            } else {
                scroll = min(scroll, max(0, list.count - 1))
                self.top = list.count > 0 ? list.key(scroll) : nil
            }
        }
    }

    /// Moves the selection (a selecting list) or the view (a list shown from its end) by
    /// `delta` rows, within the list.
    /// - Parameters:
    ///   - delta: rows down (up when negative).
    ///   - list: the list.
    ///   - rows: how many rows the list has on screen.
    package mutating func move(by delta: Int, in list: RowList<ID>, rows: Int) {
        guard list.count > 0 else { return }
        switch list.kind {
        case .selecting:
            selectedIndex = min(max(0, selectedIndex + delta), list.count - 1)
            selected = list.key(selectedIndex)
        case .tail:
            let end = max(0, list.count - rows)
            scroll = min(max(0, (followsEnd ? end : scroll) + delta), end)
            followsEnd = scroll >= end
            top = followsEnd ? nil : list.key(scroll)
        }
    }

    /// A list shown from its end follows the newest row again.
    package mutating func followEnd() {
        followsEnd = true
        top = nil
    }

    /// The first row shown on `rows` rows, kept for next time: for a selection, unchanged while
    /// the selection is visible, else just enough to show it; for a list shown from its end, the
    /// last `rows` rows while it follows the newest.
    /// - Parameters:
    ///   - list: the list.
    ///   - rows: how many rows it has on screen.
    package mutating func settle(_ list: RowList<ID>, rows: Int) -> Int {
        switch list.kind {
        case .selecting:
            scroll = Self.scrollPosition(selected: selectedIndex, previous: scroll, count: list.count, rows: rows)
        case .tail:
            let end = max(0, list.count - rows)
            if followsEnd || scroll >= end {
                scroll = end
                followEnd()
            }
        }
        return scroll
    }

    /// The first row shown: unchanged if the selection is visible, else just enough to show it.
    /// - Parameters:
    ///   - selected: the selected row's index.
    ///   - previous: the first row shown before.
    ///   - count: how many rows the list has.
    ///   - rows: how many fit on screen.
    package static func scrollPosition(selected: Int, previous: Int, count: Int, rows: Int) -> Int {
        guard rows > 0, count > rows else { return 0 }
        var scroll = min(previous, count - rows)
        if selected < scroll { scroll = selected }
        if selected >= scroll + rows { scroll = selected - rows + 1 }
        return max(0, scroll)
    }
}
