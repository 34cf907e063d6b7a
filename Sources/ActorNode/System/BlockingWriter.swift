import Dispatch
import Glibc
import Synchronization

/// Writes to a file descriptor (stdout, stderr, a log file) from a thread of its own, so that a
/// full pipe or a paused terminal never blocks a thread of Swift's cooperative pool.
///
/// ``write(_:)`` suspends the calling task until its text is written, which carries a slow
/// reader's backpressure to the writer without blocking anyone else. ``enqueue(_:)`` never waits:
/// for log lines, which are dropped (and counted) when too many are pending.
package final class BlockingWriter: Sendable {
    package static let standardOutput = BlockingWriter(fd: 1, name: "cama-stdout")
    package static let standardError = BlockingWriter(fd: 2, name: "cama-stderr")

    /// Why a write did not happen.
    package enum Failure: Error, Equatable {
        /// The reader is gone (EPIPE).
        case closed
        case failed(Int32)
    }

    private struct Item {
        var bytes: [UInt8]
        /// Called once the bytes are written (nil), or could not be (why). (Not a `Result`,
        /// whose typed failure the runtime checks against `Error` the first time a process
        /// makes one: a conformance search that was a tenth of a one-shot command's start.)
        var done: (@Sendable (Failure?) -> Void)?
    }

    private struct Queue {
        var items = RingBuffer<Item>()
        var dropped = 0
        var failure: Failure?
    }

    package let fd: Int32
    /// The most unwritten enqueued items kept; more are dropped.
    package let enqueueLimit: Int
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    package init(fd: Int32, name: String, enqueueLimit: Int = 10_000) {
        self.fd = fd
        self.enqueueLimit = enqueueLimit
        SystemThread.detach(name: name) { [self] in run() }
    }

    /// Writes `text` and returns once it is written.
    package func write(_ text: String) async throws(Failure) {
        let failed = await withCheckedContinuation { (continuation: CheckedContinuation<Failure?, Never>) in
            let failure = queue.withLock { queue -> Failure? in
                if let failure = queue.failure { return failure }
                queue.items.append(Item(bytes: Array(text.utf8), done: { continuation.resume(returning: $0) }))
                return nil
            }
            if let failure {
                continuation.resume(returning: failure)
            } else {
                wake.signal()
            }
        }
        if let failed { throw failed }
    }

    /// Queues `text` without waiting. When more than ``enqueueLimit`` items wait, the text is
    /// dropped; a line saying how many were dropped is written once the backlog clears.
    /// - Parameter text: what to write.
    package func enqueue(_ text: String) {
        enqueue(Array(text.utf8))
    }

    /// ``enqueue(_:)-(String)`` for bytes (a terminal's frame).
    /// - Parameter bytes: what to write.
    package func enqueue(_ bytes: [UInt8]) {
        let accepted = queue.withLock { queue -> Bool in
            guard queue.failure == nil else { return false }
            guard queue.items.count < enqueueLimit else {
                queue.dropped += 1
                return false
            }
            queue.items.append(Item(bytes: bytes, done: nil))
            return true
        }
        if accepted { wake.signal() }
    }

    /// Returns once everything queued before the call has been written (or failed).
    package func flush() async {
        _ = try? await write("")
    }

    /// Blocks the calling thread until everything queued before the call has been written (or
    /// failed), or `timeout` has passed. For threads of our own that are about to end the
    /// process (never for the cooperative pool, which must not block).
    package func flushBlocking(timeout: Duration) {
        let written = DispatchSemaphore(value: 0)
        let queued = queue.withLock { queue -> Bool in
            guard queue.failure == nil else { return false }
            queue.items.append(Item(bytes: [], done: { _ in written.signal() }))
            return true
        }
        guard queued else { return }
        wake.signal()
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        _ = written.wait(timeout: .now() + .milliseconds(milliseconds))
    }

    private func run() {
        while true {
            wake.wait()
            let (next, dropped) = queue.withLock { queue -> (Item?, Int) in
                let dropped = queue.items.isEmpty ? queue.dropped : 0
                if dropped > 0 { queue.dropped = 0 }
                return (queue.items.popFirst(), dropped)
            }
            if dropped > 0 {
                _ = writeAll(Array("(\(dropped) log lines dropped: the log could not keep up)\n".utf8))
            }
            guard var item = next else { continue }
            let result = writeAll(item.bytes)
            if let failure = result {
                let abandoned = queue.withLock { queue -> [Item] in
                    queue.failure = failure
                    var rest: [Item] = []
                    while let waiting = queue.items.popFirst() { rest.append(waiting) }
                    return rest
                }
                for waiting in abandoned { waiting.done?(failure) }
            }
            item.bytes = []
            item.done?(result)
        }
    }

    /// Writes all of `bytes`; nil once written, or why not.
    private func writeAll(_ bytes: [UInt8]) -> Failure? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&descriptor, 1, 1000)
                    continue
                }
                return errno == EPIPE ? .closed : .failed(errno)
            }
            offset += written
        }
        return nil
    }
}
