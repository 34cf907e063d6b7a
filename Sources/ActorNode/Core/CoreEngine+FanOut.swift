import CSystemShims
import Glibc
import Wire

/// Fan-out and backpressure: the end of a turn (frames held back taken in, the journal's
/// commit, then the turn's output released in order to every client it is for), writing each
/// client's buffer, a shell that falls behind skipped and caught up with a snapshot, a client
/// too slow for its notices let go, and a client dropped.
extension CoreEngine {
    /// Makes sure an end of turn runs soon: the current turn's, or the next one.
    func touchTurn() {
        turnWanted = true
        if !loop.isInLoopThread { loop.execute {} }
    }

    func endTurn() {
        guard !pending.isEmpty || !touched.isEmpty || !heldBack.isEmpty || turnWanted || (journal?.hasPending ?? false) else { return }
        turnWanted = false
        // Frames held back until their clients read some answers, now that they may have.
        if !heldBack.isEmpty {
            for number in heldBack.sorted() {
                guard let client = clients[number], canRead(client) else { continue }
                handleFrames(client)
                updateBudget(client)
            }
        }
        if let journal, journal.hasPending, !failed {
            if journal.policy == .always {
                // About to wait for the disk: first take in the actions that arrived during
                // this turn (and during that), so that one sync covers them too (otherwise
                // they wait for this sync, then need one of their own).
                var rounds = 0
                while rounds < 4, loop.handleReadyNow() > 0 { rounds += 1 }
            }
            guard commitJournal() else { return }
        }
        release()
        settleTouched()
    }

    func settleTouched() {
        guard !touched.isEmpty else { return }
        var taken = touched.takeAll()
        taken.forEach { settle($0) }
        touched.giveBack(&taken)
    }

    /// Hands the turn's output to the clients, in order.
    func release() {
        guard !pending.isEmpty, !failed else { return }
        // Taken whole (a copy would make the queue's next removal allocate new storage), and
        // its storage given back for the next turn unless something was queued meanwhile.
        var turn: [Pending] = []
        swap(&turn, &pending)
        defer {
            if pending.isEmpty {
                // One by one, as ``TouchedClients/giveBack(_:)`` does, for the same reason.
                while turn.popLast() != nil {}
                swap(&turn, &pending)
            }
        }
        for item in turn {
            switch item {
            case let .frame(number, bytes, isAnswer):
                guard let client = clients[number] else { continue }
                if isAnswer { client.owed -= 1 }
                if client.lagging {
                    // Held, so that it does not overtake the rendition of its revision.
                    client.held.append((bytes, isAnswer))
                } else {
                    client.output.append(bytes, isAnswer: isAnswer)
                }
                if isAnswer { touched.insertAnswered(client) } else { touched.insert(client) }
            case let .ack(number, seq, revision):
                guard let client = clients[number] else { continue }
                client.owed -= 1
                if client.lagging {
                    client.held.append((ScriptFrames.ackFrame(seq: seq, revision: revision), true))
                } else {
                    client.output.appendAck(seq: seq, revision: revision)
                }
                touched.insertAnswered(client)
            case let .resync(number, bytes):
                guard let client = clients[number], client.greeted, !client.finished else { continue }
                // A lagging client gets the newest state when it catches up.
                if !client.lagging { client.output.append(bytes, isWholeState: true) }
                touched.insert(client)
            case let .welcome(number, bytes):
                guard let client = clients[number] else { continue }
                client.output.append(bytes, isWholeState: true)
                client.greeted = true
                touched.insert(client)
            case let .rendition(bytes):
                releaseRendition(bytes)
            case let .notice(bytes):
                for client in receivers {
                    guard !client.gone, client.greeted, !client.finished else { continue }
                    if client.lagging || client.output.unsentAfterState >= limits.renditionHighWater {
                        client.lagging = true
                        client.held.append((bytes, false))
                        client.heldMessages += 1
                    } else {
                        client.output.append(bytes)
                    }
                    touched.insert(client)
                    if client.heldMessages > limits.heldMessageLimit { tooSlow(client.number) }
                }
            case let .presence(except):
                releasePresence(except: except)
            case let .lookBack(number, query):
                startLook(query, for: number)
            case let .finish(number):
                guard let client = clients[number] else { continue }
                client.finished = true
                client.deadline = MonotonicClock.deadline(after: limits.closingGrace)
                touched.insert(client)
                let deadline = limits.closingGrace
                loop.schedule(after: deadline) { [weak self] in
                    self?.onLoopThread { engine in
                        guard let client = engine.clients[number], client.finishing else { return }
                        engine.touched.insert(client)
                        engine.turnWanted = true
                    }
                }
            }
        }
    }

    /// A rendition, to every receiver. (Apart from ``release()``, whose loop would copy the
    /// turn's item at each receiver to take the frame out of it again.)
    func releaseRendition(_ bytes: [UInt8]) {
        for client in receivers {
            // Not before its welcome, which holds this revision or a later one, nor after the
            // end of its session.
            guard !client.gone, client.greeted, !client.finished else { continue }
            if client.lagging || client.output.unsentAfterState >= limits.renditionHighWater {
                // Skipped: the snapshot it gets once it catches up supersedes it.
                client.lagging = true
            } else {
                client.output.append(bytes)
            }
            touched.insert(client)
        }
    }

    /// The number of shells, to every receiver but `except`. (Apart from ``release()``, which
    /// would otherwise look up `ServerMessage`'s metadata at every turn.)
    func releasePresence(except: Int?) {
        let bytes = ServerMessage<State>.presence(Presence(shells: receivers.count)).frame()
        for client in receivers where client.number != except {
            guard client.greeted, !client.finished else { continue }
            if client.lagging {
                // Only the newest count matters: it follows the snapshot.
                client.missedPresence = true
            } else {
                client.output.append(bytes)
            }
            touched.insert(client)
        }
    }

    // MARK: Backpressure

    /// Writes what waits for a client, catches a lagging shell up once it has read enough,
    /// closes a finished client once it is done, and watches its socket for what it needs.
    func settle(_ client: EngineClient) {
        // Dropped earlier in the turn (another's settling let it go, say).
        guard !client.gone else { return }
        let number = client.number
        if client.lagging { catchUpIfReady(client) }
        guard client.output.flush(to: client.fd) else {
            dropClient(number)
            return
        }
        // What was just written may be what it lagged behind: it catches up now, not when more
        // output comes (on a quiet core none would, and its held answers would wait forever).
        if client.lagging, catchUpIfReady(client), !client.output.flush(to: client.fd) {
            dropClient(number)
            return
        }
        if !historyWaiting.isEmpty { historyRoom(client) }
        if client.output.unsent > limits.outputHardLimit {
            log("disconnecting \(client.hello.map { "\($0.role.rawValue) '\(PeerText.forLog($0.name))'" } ?? client.peer): it fell too far behind (\(client.output.unsent) bytes unread)")
            dropClient(number)
            return
        }
        // Its session ends once the finish is handed over (after everything queued before it,
        // which may wait for the journal) and written, or at the deadline.
        if client.finishing, let deadline = client.deadline, client.output.isEmpty && client.held.isEmpty || MonotonicClock.now >= deadline {
            dropClient(number)
            return
        }
        let mayRead = canRead(client)
        var wanted: UInt32 = 0
        if mayRead, !client.finishing, !client.inputEnded { wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if !client.output.isEmpty { wanted |= EPOLLOUT.rawValue }
        if wanted != client.interest, let token = client.token {
            loop.modify(client.fd, token: token, events: wanted)
            client.interest = wanted
        }
        // A client that may read again, with frames waiting in its decoder, has them handled
        // next turn (no new bytes may come to wake it).
        if mayRead, client.decoder.bufferedByteCount > 0 {
            heldBack.insert(number)
            turnWanted = true
            loop.execute {}
        }
    }

    /// A lagging client that has read enough of what waited for it catches up: the newest
    /// state supersedes every rendition it missed, and the messages held meanwhile follow it.
    /// An ending client gets the snapshot only if it is owed an answer (whose revision the
    /// snapshot must hold before the answer arrives: rendition before ack).
    /// - Returns: whether it caught up.
    @discardableResult
    func catchUpIfReady(_ client: EngineClient) -> Bool {
        guard client.lagging, client.output.unsent < limits.renditionLowWater else { return false }
        if !client.finishing || client.held.contains(where: \.isAnswer) {
            client.output.append(snapshotFrame(), isWholeState: true)
        }
        if client.missedPresence, !client.finishing {
            client.output.append(ServerMessage<State>.presence(Presence(shells: receivers.count)).frame())
        }
        catchUp(client)
        return true
    }

    /// Hands a lagging client the messages held for it, in order.
    func catchUp(_ client: EngineClient) {
        for (bytes, isAnswer) in client.held { client.output.append(bytes, isAnswer: isAnswer) }
        client.held = []
        client.heldMessages = 0
        client.missedPresence = false
        client.lagging = false
    }

    /// A shell whose copy of the state a patch did not fit asks for the whole state: it is
    /// queued after the renditions sent so far (a lagging shell gets it when it catches up).
    /// The app's bug is logged once per connection.
    func resync(_ client: EngineClient, _ request: Resync, hello: Hello) {
        if !client.reportedResync {
            client.reportedResync = true
            let reason = PeerText.forLog(Resync.cut(request.reason))
            log("\(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client))) could not apply the patch for revision \(request.revision): \(reason); sent it the whole state. The app's patches do not give the JSON its state encodes to: a bug of the app (PatchCheck in its tests finds it)")
        }
        pending.append(.resync(client: client.number, bytes: snapshotFrame()))
    }

    /// A snapshot rendition of the state now.
    func snapshotFrame() -> [UInt8] {
        guard let state = stateJSON() else {
            return ServerMessage<State>.rendition(Rendition(revision: kernel.revision, content: .snapshot(kernel.state))).frame()
        }
        return RenditionFrame.snapshotFrame(revision: kernel.revision, snapshot: state)
    }

    /// A client that let too many notices pile up unread: what it is not owed is dropped, the
    /// answers it is owed are kept, and it is let go with `too_slow` after them.
    func tooSlow(_ number: Int) {
        guard let client = clients[number], !client.finishing else { return }
        client.held = client.held.filter(\.isAnswer)
        client.heldMessages = 0
        client.held.append((ServerMessage<State>.error(ErrorMessage(
            .tooSlow, "this client fell \(limits.heldMessageLimit) messages behind; read what the core sends, then reconnect")).frame(), false))
        // The error that ends it is handed over: nothing more is queued for it.
        client.finished = true
        log("disconnecting \(client.hello.map { "\($0.role.rawValue) '\(PeerText.forLog($0.name))'" } ?? client.peer): it fell \(limits.heldMessageLimit) messages behind")
        finish(number)
        // The finish item is handed over next turn.
        turnWanted = true
        loop.execute {}
    }

    /// Closes a client's connection and forgets it.
    func dropClient(_ number: Int) {
        guard let client = clients.removeValue(forKey: number) else { return }
        client.gone = true
        if let token = client.token { loop.deregister(client.fd, token: token) }
        close(client.fd)
        if case let .awaitingHello(timer?) = client.phase { loop.cancel(timer) }
        budgetTotal -= client.budgetHeld
        if client.sessionJournaled { journal?.closeSession(number) }
        endHistory(for: number)
        heldBack.remove(number)
        touched.remove(client)
        if receivers.remove(number) != nil, let hello = client.hello {
            log("detached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)))")
            if !stopped { announcePresence(except: nil) }
        }
        if clients.isEmpty, !stopWaiters.isEmpty {
            let waiters = stopWaiters
            stopWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}
