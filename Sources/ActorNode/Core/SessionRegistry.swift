import Synchronization
import Wire

/// The clients a core has welcomed, by session number. Thread-safe, so the store's observer can
/// broadcast to them from inside the store without a hop.
final class SessionRegistry<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    struct Entry: Sendable {
        let hello: Hello
        let session: CoreSession<State, Action>
    }

    private let entries = Mutex<[Int: Entry]>([:])
    private let lettingGo = Mutex<Set<Int>>([])
    private let nextNumber = Atomic<Int>(1)
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    /// A number for a new session, before it is welcomed.
    func reserve() -> Int {
        nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// Adds a welcomed session: from now on it receives renditions and replies.
    func add(_ number: Int, _ session: CoreSession<State, Action>, hello: Hello) {
        entries.withLock { $0[number] = Entry(hello: hello, session: session) }
    }

    /// Whether the session was let go for falling behind.
    func isLetGo(_ number: Int) -> Bool {
        lettingGo.withLock { $0.contains(number) }
    }

    @discardableResult
    func remove(_ number: Int) -> Entry? {
        lettingGo.withLock { _ = $0.remove(number) }
        return entries.withLock { $0.removeValue(forKey: number) }
    }

    /// Clients that receive renditions (shells and watchers).
    var receivers: [(number: Int, entry: Entry)] {
        entries.withLock { entries in
            entries.filter { $0.value.hello.role.receivesRenditions }.map { ($0.key, $0.value) }
        }
    }

    var hasReceivers: Bool {
        entries.withLock { $0.values.contains { $0.hello.role.receivesRenditions } }
    }

    var shellCount: Int {
        entries.withLock { $0.values.filter { $0.hello.role.receivesRenditions }.count }
    }

    /// Queues a message for one client, letting it go if it has stopped reading.
    func reply(_ message: ServerMessage<State>, to number: Int) {
        guard let entry = entries.withLock({ $0[number] }) else { return }
        if entry.session.outbox.send(message) == .overflow {
            letGo(number)
        }
    }

    /// Offers a rendition to every receiver.
    func broadcast(_ rendition: Rendition<State>, snapshot: Rendition<State>) {
        for (number, entry) in receivers where entry.session.outbox.offer(rendition, snapshot: { snapshot }) == .overflow {
            letGo(number)
        }
    }

    /// Sends a message that is not a rendition (a notice) to every receiver.
    func broadcast(_ message: ServerMessage<State>) {
        for (number, entry) in receivers where entry.session.outbox.send(message) == .overflow {
            letGo(number)
        }
    }

    /// Tells every shell and watcher (but the one just welcomed, whose welcome says it) how
    /// many are attached now.
    func announcePresence(except welcomed: Int?) {
        let count = shellCount
        for (number, entry) in receivers where number != welcomed {
            if entry.session.outbox.send(.presence(Presence(shells: count))) == .overflow { letGo(number) }
        }
    }

    /// Forgets a client that fell too far behind. Its outbox now holds only a `too_slow` error;
    /// it gets a moment to read it before the connection is cut.
    func letGo(_ number: Int) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: number) }) else { return }
        lettingGo.withLock { _ = $0.insert(number) }
        log("disconnecting \(entry.hello.role.rawValue) '\(PeerText.forLog(entry.hello.name))' (client \(PeerText.forLog(entry.hello.client))): it fell too far behind")
        let session = entry.session
        Task {
            try? await Task.sleep(for: .seconds(2))
            session.disconnect()
        }
    }
}
