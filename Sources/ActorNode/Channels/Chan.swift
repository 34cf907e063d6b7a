import Synchronization

/// A channel in the CAMA sense: many senders, many receivers, each message delivered once,
/// in order. It is an `AsyncSequence` (iterate it with `for await`); `chan <- value` sends.
///
/// With a `capacity`, a send waits while the buffer is full, which slows a producer down to its
/// consumer's pace; without one the buffer grows. After ``close()`` sends fail and receivers
/// drain what is buffered, then end.
package final class Chan<Element: Sendable>: Receiving, AsyncSequence, Sendable {
    package typealias AsyncIterator = ReceivingIterator<Chan<Element>>
    package typealias Failure = Never

    /// The most messages held before a send waits.
    package let capacity: Int

    private let state: Mutex<State>

    private struct State {
        var buffer = RingBuffer<Element>()
        var closed = false
        var nextWaiterID: UInt64 = 0
        var receivers: [(id: UInt64, continuation: CheckedContinuation<Element?, Never>)] = []
        var senders: [(id: UInt64, value: Element, continuation: CheckedContinuation<Bool, Never>)] = []

        mutating func makeWaiterID() -> UInt64 {
            nextWaiterID += 1
            return nextWaiterID
        }
    }

    package init(capacity: Int = .max) {
        precondition(capacity > 0, "a channel needs room for at least one message")
        self.capacity = capacity
        state = Mutex(State())
    }

    /// Whether ``close()`` has been called.
    package var isClosed: Bool {
        state.withLock { $0.closed }
    }

    /// Messages buffered and not yet received.
    package var count: Int {
        state.withLock { $0.buffer.count }
    }

    /// Sends `value`, waiting for room if the channel is full. Returns false if the channel is
    /// closed (or the calling task is cancelled while waiting); the value is then dropped.
    @discardableResult
    package func send(_ value: Element) async -> Bool {
        let id = state.withLock { $0.makeWaiterID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let delivery: (CheckedContinuation<Element?, Never>, Element)? = state.withLock { state in
                    if state.closed || Task.isCancelled {
                        continuation.resume(returning: false)
                        return nil
                    }
                    if !state.receivers.isEmpty {
                        let receiver = state.receivers.removeFirst().continuation
                        continuation.resume(returning: true)
                        return (receiver, value)
                    }
                    if state.buffer.count < capacity {
                        state.buffer.append(value)
                        continuation.resume(returning: true)
                        return nil
                    }
                    state.senders.append((id, value, continuation))
                    return nil
                }
                if let (receiver, value) = delivery {
                    receiver.resume(returning: value)
                }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.senders.firstIndex(where: { $0.id == id }) else { return nil }
                return state.senders.remove(at: index).continuation
            }
            waiting?.resume(returning: false)
        }
    }

    /// Sends without waiting: false if the channel is closed or full.
    @discardableResult
    package func trySend(_ value: Element) -> Bool {
        let outcome: (accepted: Bool, receiver: CheckedContinuation<Element?, Never>?) = state.withLock { state in
            if state.closed { return (false, nil) }
            if !state.receivers.isEmpty { return (true, state.receivers.removeFirst().continuation) }
            guard state.buffer.count < capacity else { return (false, nil) }
            state.buffer.append(value)
            return (true, nil)
        }
        outcome.receiver?.resume(returning: value)
        return outcome.accepted
    }

    /// The next message; nil once the channel is closed and drained, or if the calling task is
    /// cancelled while waiting.
    package func receive() async -> Element? {
        let id = state.withLock { $0.makeWaiterID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let wokenSender: CheckedContinuation<Bool, Never>? = state.withLock { state in
                    if let value = state.buffer.popFirst() {
                        var woken: CheckedContinuation<Bool, Never>?
                        if !state.senders.isEmpty {
                            let sender = state.senders.removeFirst()
                            state.buffer.append(sender.value)
                            woken = sender.continuation
                        }
                        continuation.resume(returning: value)
                        return woken
                    }
                    if !state.senders.isEmpty {
                        let sender = state.senders.removeFirst()
                        continuation.resume(returning: sender.value)
                        return sender.continuation
                    }
                    if state.closed || Task.isCancelled {
                        continuation.resume(returning: nil)
                        return nil
                    }
                    state.receivers.append((id, continuation))
                    return nil
                }
                wokenSender?.resume(returning: true)
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Element?, Never>? in
                guard let index = state.receivers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.receivers.remove(at: index).continuation
            }
            waiting?.resume(returning: nil)
        }
    }

    /// Closes the channel: waiting and future sends fail, receivers get what is buffered, then nil.
    /// Closing twice is harmless.
    package func close() {
        let (receivers, senders) = state.withLock { state in
            state.closed = true
            defer {
                state.receivers = []
                state.senders = []
            }
            return (state.receivers.map(\.continuation), state.senders.map(\.continuation))
        }
        for receiver in receivers { receiver.resume(returning: nil) }
        for sender in senders { sender.resume(returning: false) }
    }

    package func makeAsyncIterator() -> ReceivingIterator<Chan<Element>> {
        ReceivingIterator(source: self)
    }
}
