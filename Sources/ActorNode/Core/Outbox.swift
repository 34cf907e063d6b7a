import Synchronization
import Wire

/// The queue of messages from the core to one client, with the slow-client policy.
///
/// Acks, rejects and other replies are always kept, and never more than
/// ``Limits/unansweredLimit`` of a client's actions wait for theirs: the core counts each action
/// it takes (``expectAnswer()``) and stops reading from the client while that many are
/// unanswered (``waitForAnswerRoom()``). Renditions supersede one another: when more than
/// ``Limits/renditionLag`` of them wait unread, they are all replaced by one snapshot of the
/// newest state, placed where the oldest of them was, so a lagging shell gets the present, not
/// the backlog; a presence count replaces the one still queued. Past ``Limits/hardLimit``
/// queued messages the outbox gives up: it drops everything but the replies, adds one
/// `too_slow` error, finishes, and reports ``Offer/overflow``; the owner then disconnects the
/// client. Offering never waits, so the core never slows down for one client.
public final class Outbox<State: Codable & Sendable>: Receiving, Sendable {
    public struct Limits: Sendable {
        public var renditionLag: Int
        public var hardLimit: Int
        /// The most actions of one client that may wait for their answers; fewer than the ledger
        /// remembers per client (``ClientLedger/recentLimit``), so that every action a client
        /// may have to send again is answered as the first time.
        public var unansweredLimit: Int

        public init(renditionLag: Int = 64, hardLimit: Int = 4096, unansweredLimit: Int = 512) {
            precondition(renditionLag >= 1 && hardLimit > renditionLag, "an outbox needs renditionLag >= 1 and hardLimit > renditionLag")
            precondition(unansweredLimit >= 1 && unansweredLimit < ClientLedger.recentLimit, "unansweredLimit must be below what the ledger remembers")
            self.renditionLag = renditionLag
            self.hardLimit = hardLimit
            self.unansweredLimit = unansweredLimit
        }
    }

    /// What became of a message handed to the outbox.
    public enum Offer: Equatable, Sendable {
        case queued
        /// The outbox is finished; the message was dropped.
        case finished
        /// The client fell too far behind; the outbox is now finished.
        case overflow
    }

    public let limits: Limits
    private let state = Mutex(QueueState())

    private struct QueueState {
        var queue: [ServerMessage<State>] = []
        var head = 0
        var queuedRenditions = 0
        var finished = false
        var coalesced = 0
        var receiver: CheckedContinuation<ServerMessage<State>?, Never>?
        /// Actions taken from the client whose ack or reject has not been handed to the writer.
        var unanswered = 0
        var roomWaiter: CheckedContinuation<Void, Never>?

        /// Takes the next message, keeping the counts right.
        mutating func popFirst() -> ServerMessage<State> {
            let message = queue[head]
            head += 1
            switch message {
            case .rendition: queuedRenditions -= 1
            case .ack, .reject: unanswered = max(0, unanswered - 1)
            default: break
            }
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return message
        }

        var count: Int { queue.count - head }

        mutating func append(_ message: ServerMessage<State>) {
            if head > 64, head * 2 > queue.count {
                queue.removeSubrange(0 ..< head)
                head = 0
            }
            queue.append(message)
        }
    }

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Queues a reply (welcome, ack, reject, error, bye) or another message (a notice, a
    /// presence count).
    @discardableResult
    public func send(_ message: ServerMessage<State>) -> Offer {
        deliver { state in
            if case .presence = message, let queued = state.queue[state.head...].lastIndex(where: { if case .presence = $0 { true } else { false } }) {
                // Only the newest count matters.
                state.queue[queued] = message
                return .queued
            }
            guard state.count < limits.hardLimit else { return overflow(&state, last: message) }
            state.append(message)
            return .queued
        }
    }

    /// Counts an action taken from the client whose answer will be queued later.
    public func expectAnswer() {
        state.withLock { $0.unanswered += 1 }
    }

    /// Returns once fewer than ``Limits/unansweredLimit`` actions wait for their answers, or the
    /// outbox is finished.
    public func waitForAnswerRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let roomNow = state.withLock { state -> Bool in
                guard state.unanswered >= limits.unansweredLimit, !state.finished else { return true }
                state.roomWaiter = continuation
                return false
            }
            if roomNow { continuation.resume() }
        }
    }

    /// Queues a rendition; `snapshot` makes the one that replaces the backlog when this client lags.
    @discardableResult
    public func offer(_ rendition: Rendition<State>, snapshot: () -> Rendition<State>) -> Offer {
        deliver { state in
            if state.queuedRenditions >= limits.renditionLag {
                coalesce(&state, into: snapshot())
                return .queued
            }
            guard state.count < limits.hardLimit else { return overflow(&state) }
            state.append(.rendition(rendition))
            state.queuedRenditions += 1
            return .queued
        }
    }

    /// Queued renditions dropped in favour of a newer snapshot so far.
    public var coalescedCount: Int {
        state.withLock { $0.coalesced }
    }

    /// Messages waiting to be taken.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// Ends the outbox: the receiver drains what is queued, then gets nil.
    public func finish() {
        let (receiver, roomWaiter) = state.withLock { state in
            state.finished = true
            defer {
                state.receiver = nil
                state.roomWaiter = nil
            }
            return (state.receiver, state.roomWaiter)
        }
        receiver?.resume(returning: nil)
        roomWaiter?.resume()
    }

    /// Queues a last message (an error or a bye) and ends the outbox. Ignored if already finished.
    public func finish(with message: ServerMessage<State>) {
        _ = deliver { state in
            state.append(message)
            state.finished = true
            return .queued
        }
        finish()
    }

    public func receive() async -> ServerMessage<State>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServerMessage<State>?, Never>) in
                var room: CheckedContinuation<Void, Never>?
                let immediate: ServerMessage<State>?? = state.withLock { state in
                    if state.count > 0 {
                        let message = state.popFirst()
                        room = takeRoomWaiter(&state)
                        return .some(message)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.receiver = continuation
                    return .none
                }
                room?.resume()
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let receiver = state.withLock { state in
                defer { state.receiver = nil }
                return state.receiver
            }
            receiver?.resume(returning: nil)
        }
    }

    /// The waiter for answer room, if there is room for it now.
    private func takeRoomWaiter(_ state: inout QueueState) -> CheckedContinuation<Void, Never>? {
        guard state.unanswered < limits.unansweredLimit || state.finished, let waiter = state.roomWaiter else { return nil }
        state.roomWaiter = nil
        return waiter
    }

    /// Runs `body` unless finished, then hands a queued message to a waiting receiver.
    private func deliver(_ body: (inout QueueState) -> Offer) -> Offer {
        var room: CheckedContinuation<Void, Never>?
        let (offer, handoff) = state.withLock { state -> (Offer, (CheckedContinuation<ServerMessage<State>?, Never>, ServerMessage<State>)?) in
            guard !state.finished else { return (.finished, nil) }
            let offer = body(&state)
            room = state.finished ? state.roomWaiter.take() : nil
            guard let receiver = state.receiver, state.count > 0 else { return (offer, nil) }
            state.receiver = nil
            let message = state.popFirst()
            room = room ?? takeRoomWaiter(&state)
            return (offer, (receiver, message))
        }
        room?.resume()
        if let (receiver, message) = handoff {
            receiver.resume(returning: message)
        }
        return offer
    }

    /// Whether a message answers the client (and so is never dropped).
    private static func isReply(_ message: ServerMessage<State>) -> Bool {
        switch message {
        case .welcome, .ack, .reject, .error, .bye: return true
        case .rendition, .notice, .presence: return false
        }
    }

    private func coalesce(_ state: inout QueueState, into snapshot: Rendition<State>) {
        var kept: [ServerMessage<State>] = []
        kept.reserveCapacity(state.count)
        var placed = false
        for message in state.queue[state.head...] {
            if case .rendition = message {
                state.coalesced += 1
                if !placed {
                    kept.append(.rendition(snapshot))
                    placed = true
                }
            } else {
                kept.append(message)
            }
        }
        state.queue = kept
        state.head = 0
        state.queuedRenditions = 1
    }

    /// Gives up on a client that fell too far behind: keeps the replies it is owed, drops the
    /// rest, and ends with a `too_slow` error.
    private func overflow(_ state: inout QueueState, last: ServerMessage<State>? = nil) -> Offer {
        let behind = state.count
        var kept = state.queue[state.head...].filter(Self.isReply)
        if let last, Self.isReply(last) { kept.append(last) }
        kept.append(.error(ErrorMessage(
            .tooSlow, "this client fell \(behind) messages behind; read what the core sends, then reconnect")))
        state.queue = kept
        state.head = 0
        state.queuedRenditions = 0
        state.finished = true
        return .overflow
    }
}
