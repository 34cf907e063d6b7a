/// The outcome of waiting for a message with a deadline.
package enum TimedReceive<Element: Sendable>: Sendable {
    case message(Element)
    /// The source ended before anything arrived.
    case ended
    case timedOut
}

extension Receiving {
    /// Waits for the next message for at most `timeout`.
    package func receive(timeout: Duration) async -> TimedReceive<Element> {
        await withTaskGroup(of: TimedReceive<Element>.self) { group in
            group.addTask {
                if let message = await self.receive() { return .message(message) }
                return Task.isCancelled ? .timedOut : .ended
            }
            group.addTask {
                // Not Task.sleep: its timer would keep its memory until the deadline even once
                // the message has come; the event loop's is freed when cancelled.
                await EventLoop.shared.sleep(for: timeout)
                return .timedOut
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }
}
