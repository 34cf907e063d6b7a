import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import Wire

/// The durable commit pipeline: an append-only journal in a state directory, written by a
/// thread of its own.
///
/// Transitions queue up while the thread writes; it takes everything queued, appends it in one
/// write, syncs according to the ``FsyncPolicy`` (one fsync for the whole group: group commit),
/// and only then runs the releases and follow-ups, in order. When the current segment passes
/// ``snapshotThreshold`` bytes, it starts a new segment and hands the state to a snapshot
/// writer on another thread; once the snapshot is durable, the older segments and snapshots are
/// removed. Journaling never waits for a snapshot.
public final class Journal<State: Codable & Sendable, Action: Codable & Sendable>: CommitPipeline, Sendable {
    public let files: StateFiles
    public let policy: FsyncPolicy
    public let snapshotThreshold: Int
    private let log: @Sendable (String) -> Void
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let snapshots: SnapshotWriter<State>
    private let beforeFailureExit: @Sendable () -> Void

    private enum Item {
        case record(Transition<State, Action>, release: @Sendable () -> Void)
        case followUp(@Sendable () -> Void)
        case flush(CheckedContinuation<Void, Never>)
    }

    private struct Queue {
        var items: [Item] = []
        var stopping = false
        var stopped: CheckedContinuation<Void, Never>?
    }

    /// The exit status of a process whose journal cannot be written.
    public static var failureExitStatus: Int32 { 70 }

    /// Opens the journal for appending records from `nextRevision` on: a new segment is started
    /// (the previous ones, possibly ending in a torn record, are only ever read).
    ///
    /// When a segment cannot be written or synced, nothing more may be acknowledged: the journal
    /// logs why, calls `beforeFailureExit` (to remove what would make others think the process
    /// still serves, such as its socket file), flushes stderr and exits the process with
    /// ``failureExitStatus``.
    public init(
        files: StateFiles, policy: FsyncPolicy, nextRevision: UInt64,
        snapshotThreshold: Int = 8 << 20,
        log: @escaping @Sendable (String) -> Void,
        beforeFailureExit: @escaping @Sendable () -> Void = {}
    ) throws(SystemError) {
        self.beforeFailureExit = beforeFailureExit
        self.files = files
        self.policy = policy
        self.snapshotThreshold = snapshotThreshold
        self.log = log
        snapshots = SnapshotWriter(files: files, log: log)
        let segment = try Segment.open(files, startingAt: nextRevision)
        SystemThread.detach(name: "cama-journal") { [self] in run(segment) }
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

    /// Flushes, then waits for a snapshot in progress (for tests that need every rotation to
    /// have taken its snapshot).
    func settle() async {
        await flush()
        await snapshots.idle()
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
        await snapshots.idle()
    }

    private func run(_ first: Segment) {
        var segment = first
        var lastSync = ContinuousClock.now
        var unsynced = false
        while true {
            // `batch` must sync within its interval even when nothing new arrives.
            if unsynced, policy == .batch {
                _ = wake.wait(timeout: .now() + .milliseconds(Int(FsyncPolicy.batchInterval.seconds * 1000)))
            } else {
                wake.wait()
            }
            let (items, stopping) = queue.withLock { queue in
                defer { queue.items = [] }
                return (queue.items, queue.stopping)
            }
            if stopping, items.isEmpty {
                segment.close()
                let stopped = queue.withLock { queue in
                    defer { queue.stopped = nil }
                    return queue.stopped
                }
                stopped?.resume()
                return
            }

            var bytes: [UInt8] = []
            var lastTransition: Transition<State, Action>?
            var mustSync = false
            for item in items {
                switch item {
                case let .record(transition, _):
                    bytes += Self.encode(transition)
                    lastTransition = transition
                case .flush:
                    mustSync = true
                case .followUp:
                    break
                }
            }
            do {
                if !bytes.isEmpty {
                    try segment.append(bytes)
                    unsynced = true
                }
                let due = policy == .always || (policy == .batch && ContinuousClock.now - lastSync >= FsyncPolicy.batchInterval)
                if unsynced, mustSync || due {
                    try segment.sync()
                    unsynced = false
                    lastSync = ContinuousClock.now
                }
            } catch {
                // Without a journal nothing more can be acknowledged: stop the process rather
                // than tell clients something a restart would take back.
                log("the journal cannot be written (\(error)); stopping so that nothing unrecorded is acknowledged")
                beforeFailureExit()
                BlockingWriter.standardError.flushBlocking(timeout: .seconds(2))
                exit(Self.failureExitStatus)
            }
            var flushed: [CheckedContinuation<Void, Never>] = []
            for item in items {
                switch item {
                case let .record(_, release): release()
                case let .followUp(body): body()
                case let .flush(continuation): flushed.append(continuation)
                }
            }
            if let lastTransition, segment.size >= snapshotThreshold, !snapshots.isBusy {
                do {
                    if unsynced {
                        try segment.sync()
                        unsynced = false
                    }
                    let next = try Segment.open(files, startingAt: lastTransition.revision + 1)
                    segment.close()
                    segment = next
                    snapshots.write(SnapshotContent(
                        revision: lastTransition.revision, at: lastTransition.at.timeIntervalSince1970,
                        state: lastTransition.state, ledger: lastTransition.ledger))
                } catch {
                    log("could not start a new journal segment (\(error)); keeping the current one")
                }
            }
            // Resumed last, so that a flush also covers a rotation this batch started.
            for continuation in flushed { continuation.resume() }
        }
    }

    private static func encode(_ transition: Transition<State, Action>) -> [UInt8] {
        do {
            return DurableRecord.encode(try WireJSON.encode(JournalEntry(transition)))
        } catch {
            fatalError("an applied action could not be encoded for the journal: \(error)")
        }
    }
}

/// One journal file open for appending.
struct Segment {
    let path: String
    let fd: Int32
    private(set) var size: Int

    static func open(_ files: StateFiles, startingAt revision: UInt64) throws(SystemError) -> Segment {
        let path = files.path(StateFiles.journalName(startingAt: revision))
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        try FileIO.syncDirectory(files.directory)
        return Segment(path: path, fd: fd, size: FileIO.size(path) ?? 0)
    }

    mutating func append(_ bytes: [UInt8]) throws(SystemError) {
        try FileIO.writeAll(fd, bytes, what: path)
        size += bytes.count
    }

    func sync() throws(SystemError) {
        try FileIO.sync(fd, what: path)
    }

    func close() {
        Glibc.close(fd)
    }
}
