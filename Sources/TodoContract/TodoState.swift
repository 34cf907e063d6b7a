import Wire
/// The to-do list: the items in display order, and the id the next added item will get.
public struct TodoState: Codable, Sendable, Equatable {
    public var items: [TodoItem]
    /// Ids only grow, even across `clear`, so an id never names two items.
    public var nextId: Int

    public init(items: [TodoItem] = [], nextId: Int = 1) {
        self.items = items
        self.nextId = nextId
    }

    /// The index of the item with `id`, if it exists.
    public func index(of id: Int) -> Int? {
        items.firstIndex { $0.id == id }
    }
}
