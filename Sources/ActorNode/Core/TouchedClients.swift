/// The clients to look at again at the end of a turn (write what waits for them, watch their
/// sockets for what they need): a mark on each client and the list of those marked, so that
/// marking one, several times a turn for every action, is a store and not a hash.
struct TouchedClients {
    /// The marked clients' numbers, in the order they were marked.
    private var numbers: [Int] = []

    var isEmpty: Bool { numbers.isEmpty }

    /// Marks `client` (once, however often it is asked).
    mutating func insert(_ client: EngineClient) {
        guard !client.touched else { return }
        client.touched = true
        numbers.append(client.number)
    }

    /// Takes every mark, in the order of the clients' numbers, leaving none: the clients still
    /// in `clients` are unmarked. (The list's storage is given back when the caller returns
    /// it with ``giveBack(_:)``.)
    mutating func takeAll(from clients: ClientTable) -> [Int] {
        var taken: [Int] = []
        swap(&taken, &numbers)
        if taken.count > 1 { taken.sort() }
        for number in taken { clients[number]?.touched = false }
        return taken
    }

    /// Takes back the storage of a list ``takeAll(from:)`` handed out, once it is done with, so
    /// that marking allocates nothing turn after turn.
    mutating func giveBack(_ taken: inout [Int]) {
        guard numbers.isEmpty else { return }
        taken.removeAll(keepingCapacity: true)
        swap(&taken, &numbers)
    }

    /// Forgets the mark of a client that has gone.
    mutating func remove(_ client: EngineClient) {
        guard client.touched else { return }
        client.touched = false
        numbers.removeAll { $0 == client.number }
    }
}
