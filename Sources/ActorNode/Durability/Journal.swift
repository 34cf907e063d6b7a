import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import Wire

/// A durable commit pipeline for a ``Store``: a ``JournalWriter`` driven by a thread of its own.
///
/// Transitions queue up while the thread writes; it takes everything queued, appends it and
/// commits it at once (one `fdatasync` for the group under `always`: group commit), and only
/// then runs the releases and follow-ups, in order. (A core serving clients does not use this:
/// its engine drives the writer from its event loop, once per turn.)
public final class Journal<State: Codable & Sendable, Action: Codable & Sendable>: CommitPipeline, Sendable {
    public let files: StateFiles
    public let policy: FsyncPolicy
    public let snapshotThreshold: Int
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let failed: @Sendable (JournalFailure) -> Void

    private enum Item {
        case record(Transition<State, Action>, release: @Sendable () -> Void)
        case followUp(@Sendable () -> Void)
        case flush(CheckedContinuation<Void, Never>)
        /// Resumed once no snapshot is being written.
        case settle(CheckedContinuation<Void, Never>)
    }

    private struct Queue {
        var items: [Item] = []
        var stopping = false
        var stopped: CheckedContinuation<Void, Never>?
    }

    /// The exit status of a core whose journal cannot be written (EX_SOFTWARE), by convention.
    public static var failureExitStatus: Int32 { 70 }

    /// Opens the journal for appending records from `nextRevision` on: a new segment is started
    /// (the previous ones, possibly ending in a torn record, are only ever read).
    ///
    /// When a segment cannot be written or synced, nothing more may be acknowledged: the journal
    /// logs why, stops for good (nothing queued is released from then on) and reports the
    /// failure to `failed`, once. Its owner decides what follows; a core stops (its socket
    /// removed, so that nobody takes it for a live one) with ``failureExitStatus``.
    /// - Parameters:
    ///   - files: the state directory.
    ///   - policy: when records are forced to disk.
    ///   - nextRevision: the revision of the first record this journal will append.
    ///   - current: the state at `nextRevision - 1` (what recovery found), or nil for none.
    ///   - snapshotThreshold: the segment size past which a snapshot is taken.
    ///   - log: where the journal's log lines go.
    ///   - failed: told, on the journal's thread, when it cannot write and has stopped.
    public init(
        files: StateFiles, policy: FsyncPolicy, nextRevision: UInt64,
        current: SnapshotContent<State>? = nil,
        snapshotThreshold: Int = 8 << 20,
        log: @escaping @Sendable (String) -> Void,
        failed: @escaping @Sendable (JournalFailure) -> Void = { _ in }
    ) throws(SystemError) {
        self.files = files
        self.policy = policy
        self.snapshotThreshold = snapshotThreshold
        self.failed = failed
        let writer = try JournalWriter<State>(files: files, policy: policy, nextRevision: nextRevision, snapshotThreshold: snapshotThreshold, log: log)
        // Handed to the journal's thread through a lock: from then on only that thread uses it.
        let handoff = Mutex<JournalWriter<State>?>(writer)
        SystemThread.detach(name: "cama-journal") { [self] in
            guard let writer = handoff.withLock({ $0.take() }) else { return }
            run(writer, latest: current)
        }
    }

    public func commit(_ transition: Transition<State, Action>, release: @escaping @Sendable () -> Void) {
        queue.withLock { $0.items.append(.record(transition, release: release)) }
        wake.signal()
    }

    public func then(_ body: @escaping @Sendable () -> Void) {
        queue.withLock { $0.items.append(.followUp(body)) }
        wake.signal()
    }

    /// Returns once everything handed over so far is written and synced, whatever the policy.
    public func flush() async {
        await withCheckedContinuation { continuation in
            queue.withLock { $0.items.append(.flush(continuation)) }
            wake.signal()
        }
    }

    /// Flushes, then stops the journal's thread and waits for a snapshot in progress.
    /// Nothing may be committed afterwards.
    public func close() async {
        await flush()
        await withCheckedContinuation { continuation in
            queue.withLock { queue in
                queue.stopping = true
                queue.stopped = continuation
            }
            wake.signal()
        }
    }

    private func run(_ writer: JournalWriter<State>, latest initial: SnapshotContent<State>?) {
        var latest = initial
        var failedOnce = false
        while true {
            // Under `batch` and `never` the writer checks its file at least every 100 ms.
            if writer.policy != .always {
                _ = wake.wait(timeout: .now() + .milliseconds(100))
            } else {
                wake.wait()
            }
            let (items, stopping, stopped) = queue.withLock { queue in
                defer {
                    queue.items = []
                    if queue.stopping { queue.stopped = nil }
                }
                return (queue.items, queue.stopping, queue.stopped)
            }
            var mustFlush = false
            var flushed: [CheckedContinuation<Void, Never>] = []
            var unrecordable: JournalFailure?
            for item in items {
                switch item {
                case let .record(transition, _):
                    guard unrecordable == nil else { break }
                    do {
                        writer.append(revision: transition.revision, record: DurableRecord.encode(try WireJSON.encode(JournalEntry(transition))))
                    } catch {
                        // Applied, and not recordable (an action holding a NaN, say): nothing
                        // more may be acknowledged, as when the journal cannot be written.
                        let reason = "revision \(transition.revision) could not be encoded for the journal: \(error)"
                        writer.log("the journal cannot be written (\(reason)); stopping so that nothing unrecorded is acknowledged")
                        unrecordable = JournalFailure(reason: reason)
                    }
                    latest = SnapshotContent(revision: transition.revision, at: transition.at.timeIntervalSince1970, state: transition.state, ledger: transition.ledger)
                case let .flush(continuation):
                    mustFlush = true
                    flushed.append(continuation)
                case .followUp, .settle:
                    break
                }
            }
            if !failedOnce, let unrecordable {
                failedOnce = true
                failed(unrecordable)
            }
            if !failedOnce {
                do {
                    // A snapshot is only ever asked for after records, so there is a latest state.
                    let snapshot = { [latest] in latest! }
                    if mustFlush { try writer.flush(latest: snapshot) } else { try writer.commit(latest: snapshot) }
                    for item in items {
                        switch item {
                        case let .record(_, release): release()
                        case let .followUp(body): body()
                        case .flush, .settle: break
                        }
                    }
                } catch {
                    // Without a journal nothing more can be acknowledged: nothing more is released.
                    failedOnce = true
                    failed(error)
                }
            }
            for continuation in flushed { continuation.resume() }
            for case let .settle(continuation) in items {
                writer.waitForSnapshot()
                continuation.resume()
            }
            if stopping {
                writer.closeBlocking()
                stopped?.resume()
                return
            }
        }
    }

    /// Flushes, then waits for a snapshot in progress (for tests that need every rotation to
    /// have taken its snapshot).
    func settle() async {
        await flush()
        await withCheckedContinuation { continuation in
            queue.withLock { $0.items.append(.settle(continuation)) }
            wake.signal()
        }
    }

}
