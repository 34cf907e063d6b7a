import Dispatch
import Glibc
import Synchronization
import Wire

/// Where a running core looks back from: its state directory, and how to replay it to a
/// revision (the app's reducer, which the generic engine reaches through this closure).
package struct LookBack: Sendable {
    package let files: StateFiles
    /// The state at a revision, as JSON, and that revision; given the newest revision the
    /// directory holds (the core's, when it asks).
    package let stateAt: @Sendable (_ revision: UInt64, _ newest: UInt64) throws(LookBackFailure) -> (revision: UInt64, json: [UInt8])

    /// - Parameters:
    ///   - files: the state directory.
    ///   - stateAt: replays the directory to a revision (``StateAtRevision``).
    package init(files: StateFiles, stateAt: @escaping @Sendable (_ revision: UInt64, _ newest: UInt64) throws(LookBackFailure) -> (revision: UInt64, json: [UInt8])) {
        self.files = files
        self.stateAt = stateAt
    }
}

/// A client's `history --follow`: the entries applied after what its reading of the journal
/// covered, held while that reading goes on.
struct HistoryFollower {
    let id: UInt64
    /// Only this client's actions (id or name).
    let client: String?
    /// Its reading of the journal is not done: new entries wait in ``held``.
    var loading = true
    var held: [[UInt8]] = []
}

/// How a thread reading the journal for one client waits for that client to read what it was
/// sent, and learns that it has gone.
final class HistoryPipe: Sendable {
    private let gone = Atomic<Bool>(false)
    private let room = DispatchSemaphore(value: 0)

    var isGone: Bool { gone.load(ordering: .acquiring) }

    /// The client read enough: the reader goes on.
    func resume() { room.signal() }

    /// The client went: the reader stops.
    func close() {
        gone.store(true, ordering: .releasing)
        room.signal()
    }

    /// Waits until ``resume()`` or ``close()``; returns false when the client went.
    func waitForRoom() -> Bool {
        room.wait()
        return !isGone
    }
}

/// Queries about the past (`state_at`, `history`): answered from the state directory on a
/// thread of their own, never on the loop, so that no other client waits for a replay. The
/// loop's part is small: it starts the thread once the turn's records are written (so that the
/// journal holds every revision up to the current one), takes the thread's frames back in
/// order, and feeds `history --follow` the entries applied since, after their records are
/// written.
extension CoreEngine {
    /// The most queries answered at once; one more gets a `busy` reply.
    static var lookLimit: Int { 4 }
    /// Bytes of history sent at a time: the reader waits until the client has read down to this.
    static var historyBatch: Int { 256 << 10 }

    /// Lets the core answer queries from `lookBack` (a core without one answers `no_journal`).
    /// - Parameter lookBack: the state directory and its replay.
    package func serveLookBack(_ lookBack: LookBack) {
        self.lookBack = lookBack
    }

    /// A client's query: refused at once when it cannot be answered, else started once this
    /// turn's records are written.
    func answerQuery(_ query: Query, from client: EngineClient) {
        guard lookBack != nil else {
            reply(client.number, Reply(id: query.id, error: LookBackFailure(.noJournal, "this core keeps no journal (it runs without a state directory), so it cannot look back").replyError))
            return
        }
        guard !asking.contains(client.number) else {
            reply(client.number, Reply(id: query.id, error: LookBackFailure(.busy, "this connection is waiting for the reply to another query; ask the next one after it").replyError))
            return
        }
        guard lookThreads < Self.lookLimit else {
            reply(client.number, Reply(id: query.id, error: LookBackFailure(.busy, "the core is answering \(Self.lookLimit) other queries about the past; try again in a moment").replyError))
            return
        }
        if let revision = query.stateAt, revision > kernel.revision {
            reply(client.number, Reply(id: query.id, error: LookBackFailure(.notHeld, "revision \(revision) is past the newest one, \(kernel.revision)").replyError))
            return
        }
        lookThreads += 1
        asking.insert(client.number)
        pending.append(.lookBack(client: client.number, query))
    }

    /// Starts answering `query` on a thread: the journal holds every revision up to the
    /// current one now.
    func startLook(_ query: Query, for number: Int) {
        guard let lookBack, clients[number] != nil else {
            lookThreads -= 1
            asking.remove(number)
            return
        }
        let last = kernel.revision
        let id = query.id
        if let revision = query.stateAt {
            SystemThread.detach(name: "cama-look") { [weak self] in
                SystemThread.yieldToOthers()
                let frame: [UInt8]
                do throws(LookBackFailure) {
                    let found = try lookBack.stateAt(revision, last)
                    frame = Self.stateReply(id: id, revision: found.revision, json: found.json)
                } catch {
                    frame = ServerMessage<JSONValue>.reply(Reply(id: id, error: error.replyError)).frame()
                }
                guard let self else { return }
                self.loop.execute { [weak self] in self?.onLoopThread { $0.lookDone(number, frame, answered: true) } }
            }
            return
        }
        guard let request = query.history else {
            lookThreads -= 1
            asking.remove(number)
            return
        }
        if request.follow == true { historyFollowers[number] = HistoryFollower(id: id, client: request.client) }
        let pipe = HistoryPipe()
        historyPipes[number] = pipe
        SystemThread.detach(name: "cama-history") { [weak self] in
            SystemThread.yieldToOthers()
            var batch: [UInt8] = []
            var answered = true
            do throws(LookBackFailure) {
                try JournalHistory.read(lookBack.files, request, through: last) { item in
                    batch += ServerMessage<JSONValue>.entry(HistoryEntry(id: id, revision: item.revision, at: item.at, by: item.by, action: item.action)).frame()
                    guard batch.count >= Self.historyBatch else { return true }
                    let full = batch
                    batch = []
                    guard let self else { return false }
                    self.loop.execute { [weak self] in self?.onLoopThread { $0.historyBatchRead(number, full, pipe: pipe) } }
                    return pipe.waitForRoom()
                }
                batch += ServerMessage<JSONValue>.reply(Reply(id: id, revision: last)).frame()
            } catch {
                batch += ServerMessage<JSONValue>.reply(Reply(id: id, error: error.replyError)).frame()
                answered = false
            }
            guard let self else { return }
            let rest = batch
            let followed = answered
            self.loop.execute { [weak self] in self?.onLoopThread { $0.lookDone(number, rest, answered: followed) } }
        }
    }

    /// The frame of a `state_at` reply, written around the state's JSON.
    nonisolated static func stateReply(id: UInt64, revision: UInt64, json: [UInt8]) -> [UInt8] {
        var payload = Array(#"{"reply":{"id":"#.utf8)
        JSONFragment.append(id, to: &payload)
        payload += Array(#","revision":"#.utf8)
        JSONFragment.append(revision, to: &payload)
        payload += Array(#","state":"#.utf8)
        payload += json
        payload += Array("}}".utf8)
        do {
            return try Frame.encode(payload, maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        } catch {
            return ServerMessage<JSONValue>.reply(Reply(id: id, error: LookBackFailure(.failed, "the state at revision \(revision) is too large for a frame (\(error))").replyError)).frame()
        }
    }

    /// A batch of a history's entries: written to the client now (they were all journaled
    /// before the reading began); the reader goes on once the client has read down to a batch.
    func historyBatchRead(_ number: Int, _ bytes: [UInt8], pipe: HistoryPipe) {
        guard let client = clients[number], !client.finishing else {
            pipe.close()
            return
        }
        client.output.append(bytes)
        touched.insert(client)
        touchTurn()
        if client.output.unsent <= Self.historyBatch {
            pipe.resume()
        } else {
            historyWaiting.insert(number)
        }
    }

    /// A client read some of its output: a history reader waiting for it goes on.
    func historyRoom(_ client: EngineClient) {
        guard historyWaiting.contains(client.number), client.output.unsent <= Self.historyBatch else { return }
        historyWaiting.remove(client.number)
        historyPipes[client.number]?.resume()
    }

    /// A query's last frames (its reply, after a history's last entries); a follower's held
    /// entries follow them, after their records are written, unless the query failed
    /// (`answered` false): then it follows nothing.
    func lookDone(_ number: Int, _ bytes: [UInt8], answered: Bool) {
        lookThreads -= 1
        asking.remove(number)
        historyPipes[number] = nil
        historyWaiting.remove(number)
        if !answered { historyFollowers[number] = nil }
        guard let client = clients[number], !client.finishing else { return }
        client.output.append(bytes)
        touched.insert(client)
        if var follower = historyFollowers[number], follower.loading {
            for frame in follower.held { pending.append(.frame(client: number, bytes: frame, isAnswer: false)) }
            follower.held = []
            follower.loading = false
            historyFollowers[number] = follower
        }
        touchTurn()
    }

    /// A `history --follow` gets the entry of an applied action (after its record is written).
    func followHistory(_ appliedAction: Action, revision: UInt64, json: ArraySlice<UInt8>?, from origin: ActionOrigin, client: EngineClient?) {
        let action: JSONValue
        do {
            if let json {
                action = try json.withUnsafeBytes { raw throws(JSONSyntaxError) in try JSONParser().parse(raw) }
            } else {
                action = try JSONValue(encoding: appliedAction)
            }
        } catch {
            return
        }
        let entry = JournalEntry(revision: revision, at: kernel.moment.timeIntervalSince1970, origin: origin, action: action)
        let session = entry.client == nil ? nil : client.flatMap { sessionRecord(of: $0)?.session }
        let by = JournalHistory.sender(entry, session)
        for (number, follower) in historyFollowers {
            if let wanted = follower.client, entry.client != wanted, session?.name != wanted { continue }
            let frame = ServerMessage<JSONValue>.entry(HistoryEntry(id: follower.id, revision: revision, at: entry.at, by: by, action: action)).frame()
            if follower.loading {
                historyFollowers[number]!.held.append(frame)
            } else {
                pending.append(.frame(client: number, bytes: frame, isAnswer: false))
            }
        }
    }

    /// Who a client is, as the journal records it (made once per connection).
    func sessionRecord(of client: EngineClient) -> SessionRecord? {
        if let record = client.session { return record }
        guard let hello = client.hello else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let record = SessionRecord(hello: hello, peer: UnixSocket.peerCredentials(client.fd), at: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
        client.session = record
        return record
    }

    /// A client went: its history reader stops, and it follows nothing. (Its query's thread
    /// still ends with ``lookDone(_:_:answered:)``, which frees its place.)
    func endHistory(for number: Int) {
        historyFollowers[number] = nil
        historyWaiting.remove(number)
        historyPipes.removeValue(forKey: number)?.close()
    }

    /// Queues a reply to a query (not an answer to an action).
    func reply(_ number: Int, _ reply: Reply) {
        pending.append(.frame(client: number, bytes: ServerMessage<JSONValue>.reply(reply).frame(), isAnswer: false))
    }
}
