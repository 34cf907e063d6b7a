import Synchronization
import Wire

/// The queue of messages from the core to one client, with the slow-client policy.
///
/// Acks, rejects and other replies are always kept. Renditions supersede one another: when more
/// than ``Limits/renditionLag`` of them wait unread, they are all replaced by one snapshot of
/// the newest state, placed where the oldest of them was, so a lagging shell gets the present,
/// not the backlog. Past ``Limits/hardLimit`` queued messages the outbox gives up: it drops the
/// backlog, keeps one `too_slow` error for the client, finishes, and reports ``Offer/overflow``;
/// the owner then disconnects the client. Nothing here ever waits, so the core never slows down
/// for one client.
public final class Outbox<State: Codable & Sendable>: Receiving, Sendable {
    public struct Limits: Sendable {
        public var renditionLag: Int
        public var hardLimit: Int

        public init(renditionLag: Int = 64, hardLimit: Int = 4096) {
            precondition(renditionLag >= 1 && hardLimit > renditionLag, "an outbox needs renditionLag >= 1 and hardLimit > renditionLag")
            self.renditionLag = renditionLag
            self.hardLimit = hardLimit
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

    /// Queues a reply (welcome, ack, reject, error, bye).
    @discardableResult
    public func send(_ message: ServerMessage<State>) -> Offer {
        deliver { state in
            guard state.count < limits.hardLimit else { return overflow(&state) }
            state.append(message)
            return .queued
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
        let receiver = state.withLock { state -> CheckedContinuation<ServerMessage<State>?, Never>? in
            state.finished = true
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume(returning: nil)
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
                let immediate: ServerMessage<State>?? = state.withLock { state in
                    if state.count > 0 {
                        let message = state.queue[state.head]
                        state.head += 1
                        if case .rendition = message { state.queuedRenditions -= 1 }
                        if state.head == state.queue.count {
                            state.queue.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .some(message)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.receiver = continuation
                    return .none
                }
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

    /// Runs `body` unless finished, then hands a queued message to a waiting receiver.
    private func deliver(_ body: (inout QueueState) -> Offer) -> Offer {
        let (offer, handoff) = state.withLock { state -> (Offer, (CheckedContinuation<ServerMessage<State>?, Never>, ServerMessage<State>)?) in
            guard !state.finished else { return (.finished, nil) }
            let offer = body(&state)
            guard let receiver = state.receiver, state.count > 0 else { return (offer, nil) }
            state.receiver = nil
            let message = state.queue[state.head]
            state.head += 1
            if case .rendition = message { state.queuedRenditions -= 1 }
            return (offer, (receiver, message))
        }
        if let (receiver, message) = handoff {
            receiver.resume(returning: message)
        }
        return offer
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

    private func overflow(_ state: inout QueueState) -> Offer {
        let dropped = state.count
        state.queue = [.error(ErrorMessage(
            .tooSlow, "this client fell \(dropped) messages behind; read what the core sends, then reconnect"))]
        state.head = 0
        state.queuedRenditions = 0
        state.finished = true
        return .overflow
    }
}
