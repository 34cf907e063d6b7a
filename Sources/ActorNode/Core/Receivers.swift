/// The welcomed clients that receive renditions, notices and presence (shells and watchers),
/// in the order of their numbers: a rendition goes to each by walking this list, with no
/// lookup by number, and marks them for the end of the turn in that order.
struct Receivers: Sequence {
    private var clients: [EngineClient] = []

    var count: Int { clients.count }
    var isEmpty: Bool { clients.isEmpty }

    /// Adds a client just welcomed (numbers grow, so it usually goes last).
    mutating func insert(_ client: EngineClient) {
        var index = clients.endIndex
        while index > clients.startIndex, clients[index - 1].number > client.number { index -= 1 }
        guard index == clients.startIndex || clients[index - 1].number != client.number else { return }
        clients.insert(client, at: index)
    }

    /// Removes the client with this number; the client, if it was a receiver.
    @discardableResult
    mutating func remove(_ number: Int) -> EngineClient? {
        guard let index = clients.firstIndex(where: { $0.number == number }) else { return nil }
        return clients.remove(at: index)
    }

    func makeIterator() -> IndexingIterator<[EngineClient]> {
        clients.makeIterator()
    }
}
