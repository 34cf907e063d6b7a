import Wire
/// The to-do list: the items in display order, and the id the next added item will get.
///
/// The items are a ``ChunkedArray``, so that an action's cost does not grow with the list: a
/// core that keeps the state before each action copies a short list of groups of chunks, not
/// the items.
public struct TodoState: Codable, Sendable, Equatable {
    public var items: ChunkedArray<TodoItem>
    /// Ids only grow, even across `clear`, so an id never names two items.
    public var nextId: Int

    public init(items: [TodoItem] = [], nextId: Int = 1) {
        self.items = ChunkedArray(items)
        self.nextId = nextId
    }

    /// The index of the item with `id`, if it exists.
    ///
    /// Items are added with growing ids, so an item is usually found near where its id says,
    /// counted from the first item's id: the search starts there and widens, and costs the
    /// distance from that guess, not the length of the list. Any `Int` may be asked for: an id
    /// so far from the first one that the difference overflows (`Int.min` when the first id is
    /// 1) starts the search at the end of the list on its side, as any far id does.
    public func index(of id: Int) -> Int? {
        guard let first = items.first else { return nil }
        let (offset, overflow) = id.subtractingReportingOverflow(first.id)
        let guess = overflow ? (id < first.id ? 0 : items.count - 1) : min(max(offset, 0), items.count - 1)
        for distance in 0 ..< items.count {
            let after = guess + distance
            let before = guess - distance
            if after < items.count, items[after].id == id { return after }
            if distance > 0, before >= 0, items[before].id == id { return before }
            if after >= items.count - 1, before <= 0 { break }
        }
        return nil
    }
}
