/// The list of a ``Screen``: keyed rows, made only as they are shown (a list of 100,000 items
/// costs the rows on screen, not 100,000 rows), in one of two ways:
/// - ``selecting(_:empty:row:)``: a selection bar that ↑ ↓ (j k), PgUp PgDn, Home and End move,
///   that keys act on (``ScreenContext/selected``), and that stays on its row, by key, when
///   rows come and go around it;
/// - ``tail(_:empty:row:)``: newest at the bottom, as a log or a chat: the view follows new rows
///   unless it was scrolled up, and then stays on the rows it shows, by key.
public struct RowList<ID: Hashable> {
    /// How the list is moved through.
    package enum Kind: Sendable {
        case selecting, tail
    }

    package let kind: Kind
    /// How many rows it has.
    package let count: Int
    /// The key of the row at an index.
    package let key: (Int) -> ID
    /// The row at an index, selected or not.
    package let row: (Int, Bool) -> Row
    /// What the first row shows when the list is empty.
    package let empty: String?

    /// A list with a selection, over elements with stable ids.
    /// - Parameters:
    ///   - elements: the elements, in order (an array, or a `ChunkedArray` for long lists).
    ///   - empty: what to show when there are none.
    ///   - row: an element's row, and whether it is the selected one (the kit draws that row
    ///     reversed across the width).
    public static func selecting<Elements: RandomAccessCollection>(
        _ elements: Elements, empty: String? = nil, row: @escaping (_ element: Elements.Element, _ selected: Bool) -> Row
    ) -> RowList where Elements.Element: Identifiable, Elements.Element.ID == ID, Elements.Index == Int {
        RowList(kind: .selecting, count: elements.count, key: { elements[elements.startIndex + $0].id },
                row: { row(elements[elements.startIndex + $0], $1) }, empty: empty)
    }

    /// A list shown from its end, as a log or a chat.
    /// - Parameters:
    ///   - elements: the elements, oldest first.
    ///   - empty: what to show when there are none.
    ///   - row: an element's row.
    public static func tail<Elements: RandomAccessCollection>(
        _ elements: Elements, empty: String? = nil, row: @escaping (_ element: Elements.Element) -> Row
    ) -> RowList where Elements.Element: Identifiable, Elements.Element.ID == ID, Elements.Index == Int {
        RowList(kind: .tail, count: elements.count, key: { elements[elements.startIndex + $0].id },
                row: { element, _ in row(elements[elements.startIndex + element]) }, empty: empty)
    }

    /// - Parameters:
    ///   - kind: selecting, or shown from its end.
    ///   - count: how many rows.
    ///   - key: the key of the row at an index.
    ///   - row: the row at an index, selected or not.
    ///   - empty: what to show when there are none.
    package init(kind: Kind, count: Int, key: @escaping (Int) -> ID, row: @escaping (Int, Bool) -> Row, empty: String?) {
        self.kind = kind
        self.count = count
        self.key = key
        self.row = row
        self.empty = empty
    }

    /// The index of the row with `key`, searching from `near` outwards (where it was, usually).
    /// - Parameters:
    ///   - key: a row's key.
    ///   - near: where to look first.
    package func index(of key: ID, near: Int) -> Int? {
        guard count > 0 else { return nil }
        let start = min(max(0, near), count - 1)
        if self.key(start) == key { return start }
        var distance = 1
        while start - distance >= 0 || start + distance < count {
            if start + distance < count, self.key(start + distance) == key { return start + distance }
            if start - distance >= 0, self.key(start - distance) == key { return start - distance }
            distance += 1
        }
        return nil
    }
}
