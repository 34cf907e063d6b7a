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
    private let failed: @Sendable (JournalFailure) -> Void
    /// The state the journal starts from (what recovery found), kept so that it can be written
    /// as a snapshot if the journal's file disappears before anything new is recorded.
    private let initial: SnapshotContent<State>?

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

    /// The exit status of a core whose journal cannot be written (EX_SOFTWARE), by convention.
    public static var failureExitStatus: Int32 { 70 }

    /// Opens the journal for appending records from `nextRevision` on: a new segment is started
    /// (the previous ones, possibly ending in a torn record, are only ever read).
    ///
    /// When a segment cannot be written or synced, nothing more may be acknowledged: the journal
    /// logs why, stops for good (nothing queued is released from then on) and reports the
    /// failure to `failed`, once. Its owner decides what follows; a core stops (its socket
    /// removed, so that nobody takes it for a live one) with ``failureExitStatus``.
    ///
    /// The journal also checks that the file it appends to is still the one in the state
    /// directory (after every group commit under `always`, at least every 100 ms otherwise).
    /// When it was removed or replaced, what was appended since went nowhere durable: before
    /// anything more is acknowledged the journal writes the current state as a snapshot,
    /// moves a replacing file aside and starts a new segment, saying so in the log.
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
        self.failed = failed
        initial = current
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
        var lastCheck = ContinuousClock.now
        var unsynced = false
        var unchecked = false
        var latest = initial
        while true {
            // `batch` must sync within its interval even when nothing new arrives, and every
            // policy checks its file within that interval after writing to it.
            if (unsynced && policy == .batch) || unchecked {
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
                    latest = SnapshotContent(
                        revision: transition.revision, at: transition.at.timeIntervalSince1970,
                        state: transition.state, ledger: transition.ledger)
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
                    unchecked = true
                }
                let due = policy == .always || (policy == .batch && ContinuousClock.now - lastSync >= FsyncPolicy.batchInterval)
                if unsynced, mustSync || due {
                    try segment.sync()
                    unsynced = false
                    lastSync = ContinuousClock.now
                }
                // Before anything in this group is acknowledged (under `always`), or within the
                // interval: is the file we append to still the one in the directory?
                if unchecked, policy == .always || mustSync || ContinuousClock.now - lastCheck >= FsyncPolicy.batchInterval {
                    try reestablishIfMoved(&segment, latest: latest)
                    unchecked = false
                    lastCheck = ContinuousClock.now
                }
            } catch {
                // Without a journal nothing more can be acknowledged: stop the process rather
                // than tell clients something a restart would take back.
                let what = files.exists ? "\(error)" : "the state directory \(files.directory) was removed"
                log("the journal cannot be written (\(what)); stopping so that nothing unrecorded is acknowledged")
                failed(JournalFailure(reason: what))
                segment.close()
                drainAfterFailure()
                return
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

    /// After a failure: nothing is written or released any more, but flushes and the close
    /// still return (they find nothing durable beyond what was).
    private func drainAfterFailure() {
        while true {
            wake.wait()
            let (items, stopping, stopped) = queue.withLock { queue in
                defer {
                    queue.items = []
                    if queue.stopping { queue.stopped = nil }
                }
                return (queue.items, queue.stopping, queue.stopped)
            }
            for case let .flush(continuation) in items { continuation.resume() }
            if stopping {
                stopped?.resume()
                return
            }
        }
    }

    /// When the segment's file is no longer in the directory (removed, or replaced by another
    /// file), the records appended to it since are not durable: writes the newest state as a
    /// snapshot, moves a replacing file aside, and continues in a new segment.
    private func reestablishIfMoved(_ segment: inout Segment, latest: SnapshotContent<State>?) throws(SystemError) {
        let placement = segment.placement()
        guard placement != .inPlace else { return }
        let name = PathName.fileName(of: segment.path)
        let revision = latest?.revision ?? 0
        var what = "was removed"
        if placement == .replaced {
            let aside = segment.path + ".replaced"
            guard rename(segment.path, aside) == 0 else { throw SystemError("rename \(segment.path)") }
            what = "was replaced by another file (moved aside to \(PathName.fileName(of: aside)))"
        }
        if let latest, latest.revision > 0 {
            try FileIO.writeAtomically(files.path(StateFiles.snapshotName(at: latest.revision)), DurableRecord.encode(Self.encode(latest)))
        }
        let next = try Segment.open(files, startingAt: revision + 1)
        segment.close()
        segment = next
        log("the journal \(name) \(what) while this core was writing it; wrote the state at revision \(revision) as a snapshot and continued in \(PathName.fileName(of: next.path)), so nothing acknowledged is lost")
    }

    private static func encode(_ snapshot: SnapshotContent<State>) -> [UInt8] {
        do {
            return try WireJSON.encode(snapshot)
        } catch {
            fatalError("the state could not be encoded for a snapshot: \(error)")
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

    /// Whether the file this segment appends to is still the one at its path.
    enum Placement {
        case inPlace
        /// Unlinked, or renamed away: nothing is at the path, or the file has no name left.
        case missing
        /// Another file is at the path.
        case replaced
    }

    func placement() -> Placement {
        var own = stat()
        guard fstat(fd, &own) == 0 else { return .missing }
        var there = stat()
        guard stat(path, &there) == 0 else { return .missing }
        guard there.st_ino == own.st_ino, there.st_dev == own.st_dev else { return .replaced }
        return own.st_nlink > 0 ? .inPlace : .missing
    }
}

/// Why a journal stopped: it could not write or sync its segment.
public struct JournalFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a log line.
    public var reason: String

    public var description: String { "the journal cannot be written (\(reason))" }
}
