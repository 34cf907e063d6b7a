import Dispatch
import Glibc
import Synchronization

/// `always`'s thread, for a writer on an event loop: the writer writes a turn's records and
/// asks for them to be synced; this thread runs `fdatasync` while the loop goes on reading and
/// applying the next turn's actions, and reports each sync done. One sync covers every write
/// asked for before it started (group commit), and the loop's thread never waits for a disk.
///
/// It syncs a duplicate of the current segment's descriptor, which only it closes; a writer
/// that moves to a new segment syncs the old one itself first, so a sync of the new one covers
/// everything asked for before.
final class GroupSyncer: Sendable {
    private struct Work {
        /// The highest ticket asked for, and the highest synced.
        var wanted: UInt64 = 0
        var synced: UInt64 = 0
        var segment: (fd: Int32, path: String)?
        var stopped = false
    }

    private let work = Mutex(Work())
    private let wake = Condition()
    private let done: @Sendable (Result<UInt64, SystemError>) -> Void

    /// - Parameter done: told, on this thread, the highest ticket synced (or the failure).
    init(done: @escaping @Sendable (Result<UInt64, SystemError>) -> Void) {
        self.done = done
        SystemThread.detach(name: "cama-fsync") { [self] in run() }
    }

    /// Syncs `segment` from now on.
    func follow(fd: Int32, path: String) {
        let copy = dup(fd)
        let previous = work.withLock { work -> Int32? in
            defer { work.segment = (copy, path) }
            return work.segment?.fd
        }
        if let previous { close(previous) }
    }

    /// Asks for every write up to `ticket` to be synced.
    func request(_ ticket: UInt64) {
        work.withLock { $0.wanted = max($0.wanted, ticket) }
        wake.signal()
    }

    /// Ends the thread once it has synced what was asked.
    func stop() {
        work.withLock { $0.stopped = true }
        wake.signal()
    }

    private func run() {
        while true {
            wake.wait()
            let (target, segment, stopped) = work.withLock { work in
                (work.wanted > work.synced ? work.wanted : nil, work.segment, work.stopped)
            }
            if let target, let segment {
                if fdatasync(segment.fd) == 0 {
                    work.withLock { $0.synced = target }
                    done(.success(target))
                } else {
                    done(.failure(SystemError("fdatasync \(segment.path)")))
                    return
                }
            }
            if stopped {
                if let fd = work.withLock({ $0.segment?.fd }) { close(fd) }
                return
            }
        }
    }
}

/// A wake-up that is never lost: a signal before the wait makes the wait return at once.
final class Condition: Sendable {
    private let pending = Mutex(false)
    private let semaphore = DispatchSemaphore(value: 0)

    func signal() {
        let wasPending = pending.withLock { pending -> Bool in
            defer { pending = true }
            return pending
        }
        if !wasPending { semaphore.signal() }
    }

    func wait() {
        semaphore.wait()
        pending.withLock { $0 = false }
    }
}
