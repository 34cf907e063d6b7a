/// The clients to look at again at the end of a turn (write what waits for them, watch their
/// sockets for what they need): a mark on each client and the lists of those marked, so that
/// marking one, several times a turn for every action, is a store and not a hash.
///
/// Clients owed an answer (an ack, a reply) are written first: their senders wait on them,
/// while a shell's rendition is news it reads when it can. With one sender and a hundred
/// watchers, the sender sends its next action while the core writes the renditions. (Redis
/// does the same by another road: its list of clients to write is last in, first out, so the
/// reply to a PUBLISH, queued after the subscribers' messages, is written before them.)
struct TouchedClients {
    /// The marks of one turn, taken: ``forEach(_:)`` goes through the clients owed an answer,
    /// then the others, each in the order they were marked and each client once.
    struct Taken {
        fileprivate var answered: [EngineClient] = []
        /// The clients marked; some were marked owed an answer after, and are in `answered`.
        fileprivate var others: [EngineClient] = []
        /// The turn they were marked in.
        fileprivate var turn: UInt64 = 0

        /// Calls `body` with each client marked, those owed an answer first.
        func forEach(_ body: (EngineClient) -> Void) {
            for client in answered { body(client) }
            // One marked owed an answer in this turn was in `answered`. (One marked again
            // since, while `body` settled another, is for the next turn: settling it twice is
            // only a look at it with nothing new.)
            for client in others where client.answerTurn != turn { body(client) }
        }
    }

    /// The turn being marked. A client is marked when its ``EngineClient/markTurn`` is this
    /// turn, and owed an answer when its ``EngineClient/answerTurn`` is: taking the marks moves
    /// to the next turn, which lifts them all at once, with no pass over the clients.
    private var turn: UInt64 = 1
    /// This turn's marks so far.
    private var marked = Taken(turn: 1)
    /// The storage of the lists last handed out, given back (``giveBack(_:)``).
    private var spare = Taken()

    var isEmpty: Bool { marked.answered.isEmpty && marked.others.isEmpty }

    /// Whether `client` is marked in the turn being marked.
    func isMarked(_ client: EngineClient) -> Bool { client.markTurn == turn }

    /// Marks `client` (once, however often it is asked).
    mutating func insert(_ client: EngineClient) {
        guard client.markTurn != turn else { return }
        client.markTurn = turn
        marked.others.append(client)
    }

    /// Marks `client` as owed an answer: it is written before the clients only touched. (A
    /// client marked before stays in the other list, and is passed over there.)
    mutating func insertAnswered(_ client: EngineClient) {
        guard client.answerTurn != turn else { return }
        client.markTurn = turn
        client.answerTurn = turn
        marked.answered.append(client)
    }

    /// Takes every mark, leaving none, before the caller settles any client (so that one
    /// marked again meanwhile is marked for the next turn). No sorting, no lookup by number,
    /// no pass over the clients: with a hundred shells, sorting their numbers and finding each
    /// again cost more than the rendition they were sent. (The lists' storage is given back
    /// when the caller returns them with ``giveBack(_:)``.)
    mutating func takeAll() -> Taken {
        turn += 1
        var taken = Taken(turn: turn)
        swap(&taken.answered, &spare.answered)
        swap(&taken.others, &spare.others)
        swap(&taken, &marked)
        return taken
    }

    /// Takes back the storage of lists ``takeAll()`` handed out, once they are done with, so
    /// that marking allocates nothing turn after turn.
    mutating func giveBack(_ taken: inout Taken) {
        // Taken off one by one: the few clients of a turn cost less so than the standard
        // library's `removeAll(keepingCapacity:)`, a generic replacement of the whole range
        // that cost 190 instructions a list, empty or not (callgrind, one client: 380 of the
        // 11,000 an action took).
        while taken.answered.popLast() != nil {}
        while taken.others.popLast() != nil {}
        swap(&taken.answered, &spare.answered)
        swap(&taken.others, &spare.others)
    }

    /// Forgets the mark of a client that has gone.
    mutating func remove(_ client: EngineClient) {
        guard client.markTurn == turn else { return }
        if client.answerTurn == turn { marked.answered.removeAll { $0 === client } }
        marked.others.removeAll { $0 === client }
        client.markTurn = 0
        client.answerTurn = 0
    }
}
