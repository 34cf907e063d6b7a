import Glibc
import Synchronization
@_spi(ByteWriting) import Wire

/// The journal's files, written by one thread (a core's event loop): records are appended to a
/// buffer as they come, and ``commit(latest:)`` writes them all at once, then makes them
/// durable as the ``FsyncPolicy`` says:
///
/// - `always`: `fdatasync` before `commit` returns (group commit: one for everything appended
///   since the last commit);
/// - `batch`: a thread of its own syncs at least every 100 ms; `commit` never waits for a disk;
/// - `never`: the system writes back when it chooses.
///
/// Before anything in a commit is acknowledged (`always`), or within 100 ms (`batch`,
/// `never`), it checks that its file is still the one in the state directory; when it was
/// removed or replaced, it writes the newest state as a snapshot, moves a replacing file aside
/// and continues in a new segment. When a segment passes the snapshot threshold, it starts a
/// new one and hands the newest state to the snapshot writer.
///
/// Its state is marked `@exclusivity(unchecked)`, as the engine's is (see `CoreEngine`): every
/// action appends to its buffer, and it is used by its engine alone.
final class JournalWriter<State: Codable & Sendable> {
    let files: StateFiles
    let policy: FsyncPolicy
    let snapshotThreshold: Int
    /// Where the journal's log lines go.
    let log: @Sendable (String) -> Void
    private let snapshots: SnapshotWriter<State>
    private let syncer: BackgroundSyncer?
    @exclusivity(unchecked) private var segment: Segment
    @exclusivity(unchecked) private var buffer = ByteBuffer()
    /// The revision of the last record appended.
    @exclusivity(unchecked) private(set) var lastRevision: UInt64
    /// When the file was last checked, in ``MonotonicClock`` nanoseconds (read at every commit:
    /// a `ContinuousClock` instant and its arithmetic cost some 150 instructions a turn).
    @exclusivity(unchecked) private var lastCheck = MonotonicClock.now
    @exclusivity(unchecked) private var unchecked = false
    /// Since when a new segment could not be started (the directory takes no new files: its
    /// permissions, a full inode table, a quota), and when to try again.
    @exclusivity(unchecked) private var rotationFailing: (since: ContinuousClock.Instant, retry: ContinuousClock.Instant)?

    /// How long the journal goes on in its segment before it tries again to start a new one.
    static var rotationRetryInterval: Duration { .seconds(1) }

    /// Opens a new segment for the records from `nextRevision` on, after removing the history
    /// `retention` no longer keeps.
    init(
        files: StateFiles, policy: FsyncPolicy, nextRevision: UInt64, snapshotThreshold: Int, retention: HistoryRetention = .none,
        log: @escaping @Sendable (String) -> Void
    ) throws(SystemError) {
        self.files = files
        self.policy = policy
        self.snapshotThreshold = snapshotThreshold
        self.log = log
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if retention.prune(files, now: Double(now.tv_sec)) { try FileIO.syncDirectory(files.directory) }
        snapshots = SnapshotWriter(files: files, retention: retention, log: log)
        segment = try Segment.open(files, startingAt: nextRevision, reservingAhead: policy == .always)
        lastRevision = nextRevision - 1
        syncer = policy == .batch ? BackgroundSyncer(log: log) : nil
        syncer?.follow(segment)
    }

    /// The session records of the clients connected now (by the engine's number for each),
    /// written again at the start of every new segment, so that a segment's actions can be
    /// told apart by sender after the older segments are gone.
    @exclusivity(unchecked) private var sessions: [Int: [UInt8]] = [:]

    /// Records appended and not yet written.
    var hasPending: Bool { !buffer.isEmpty }

    /// Records who a client is (``SessionRecord``): once when it is welcomed, and again in each
    /// new segment while it stays.
    /// - Parameters:
    ///   - number: the engine's number for the client.
    ///   - record: its session record's JSON.
    func openSession(_ number: Int, record: [UInt8]) {
        let bytes = DurableRecord.encode(record)
        sessions[number] = bytes
        buffer.append(bytes)
    }

    /// The client has gone: its record is not written again.
    /// - Parameter number: the engine's number for the client.
    func closeSession(_ number: Int) {
        sessions[number] = nil
    }

    /// A new segment starts with the records of the clients connected now.
    private func repeatSessions() {
        for number in sessions.keys.sorted() { buffer.append(sessions[number]!) }
    }


    /// Records were written since the file's place was last checked (under `batch` and
    /// `never`): a ``commit(latest:)`` within ``FsyncPolicy/batchInterval`` should check it.
    var needsCheck: Bool { unchecked }

    /// Appends one record (its revision and bytes, already encoded as a ``DurableRecord``).
    func append(revision: UInt64, record: [UInt8]) {
        buffer.append(record)
        lastRevision = revision
    }

    /// Appends the record of a client's action whose JSON text is at hand, written straight
    /// into the buffer (see ``JournalRecordText``): what every action a client sends costs.
    /// - Parameters:
    ///   - action: the action's JSON text, as the client sent it.
    ///   - at: when it was applied, in seconds since 1970.
    ///   - client: the client id as a JSON string.
    ///   - revision: the revision it made.
    ///   - seq: its sequence number.
    func appendEntry(action: ArraySlice<UInt8>, at: Double, client: [UInt8], revision: UInt64, seq: UInt64) {
        let longest = DurableRecord.headerLength + action.count + client.count + JournalRecordText.longestFixedPart
        buffer.appendWritten(atMost: longest) { cursor in
            cursor.writeRecord { payload in
                JournalRecordText.write(action: action, at: at, client: client, revision: revision, seq: seq, to: &payload)
            }
        }
        lastRevision = revision
    }

    /// Writes what was appended and makes it as durable as the policy says, checks the file,
    /// and rotates when the segment is big enough. `latest` gives the newest state when a
    /// snapshot is needed (it is not called otherwise).
    func commit(latest: () -> SnapshotContent<State>) throws(JournalFailure) {
        do throws(SystemError) {
            if !buffer.isEmpty {
                try segment.append(buffer.unsafeBytes)
                buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
                unchecked = true
                if policy == .always {
                    try segment.sync()
                } else {
                    syncer?.markDirty()
                }
            }
        } catch {
            throw failure(error)
        }
        if unchecked, policy == .always || MonotonicClock.now &- lastCheck >= FsyncPolicy.batchIntervalNanoseconds {
            try reestablishIfMoved(latest: latest)
            unchecked = false
            lastCheck = MonotonicClock.now
        }
        if segment.size >= snapshotThreshold, !snapshots.isBusy, rotationFailing.map({ ContinuousClock.now >= $0.retry }) ?? true {
            try rotate(latest: latest)
        }
    }

    /// Writes what was appended and forces everything to disk, whatever the policy (a clean
    /// stop does this).
    func flush(latest: () -> SnapshotContent<State>) throws(JournalFailure) {
        try commit(latest: latest)
        do {
            try segment.sync()
        } catch {
            throw failure(error)
        }
    }

    /// Waits for a snapshot being written; then stops the syncer and closes the segment.
    nonisolated(nonsending) func close() async {
        await snapshots.idle()
        syncer?.stop()
        finishSegment()
    }

    /// ``close()``, blocking the calling thread (one of our own).
    func closeBlocking() {
        snapshots.waitIdle()
        syncer?.stop()
        finishSegment()
    }

    /// Cuts the zeros laid out ahead off the last segment and closes it. (Left in place when
    /// that fails: recovery reads them as the end of the records.)
    private func finishSegment() {
        do {
            try segment.trimReserve()
        } catch {
            log("could not cut the zeros laid out ahead off \(segment.path) (\(error.reason)); recovery reads them as the end of the journal")
        }
        segment.close()
    }

    /// Waits until no snapshot is being written (for tests).
    nonisolated(nonsending) func settle() async {
        await snapshots.idle()
    }

    private func failure(_ error: SystemError) -> JournalFailure {
        let what = files.exists ? "\(error)" : "the state directory \(files.directory) was removed"
        log("the journal cannot be written (\(what)); stopping so that nothing unrecorded is acknowledged")
        return JournalFailure(reason: what)
    }

    /// Starts a new segment after the last record and hands the state to the snapshot writer.
    ///
    /// A directory that takes no new files does not stop the journal: it goes on in the segment
    /// it has (which takes writes as before), says so once, and tries again every
    /// ``rotationRetryInterval``. Only a segment that cannot be written or synced is a failure.
    private func rotate(latest: () -> SnapshotContent<State>) throws(JournalFailure) {
        let next: Segment
        do {
            next = try Segment.open(files, startingAt: lastRevision + 1, reservingAhead: policy == .always)
        } catch {
            let now = ContinuousClock.now
            if rotationFailing == nil {
                log("cannot start a new journal segment (\(error)); going on in \(PathName.fileName(of: segment.path)), which takes writes as before, with no new snapshot meanwhile; trying again every \(Self.rotationRetryInterval.readable)")
            }
            rotationFailing = (rotationFailing?.since ?? now, now + Self.rotationRetryInterval)
            return
        }
        do throws(SystemError) {
            try segment.sync()
            try segment.trimReserve()
        } catch {
            next.close()
            unlink(next.path)
            throw failure(error)
        }
        if let failing = rotationFailing {
            log("started a new journal segment again, \(PathName.fileName(of: next.path)), after \((ContinuousClock.now - failing.since).readable) of going on in \(PathName.fileName(of: segment.path))")
            rotationFailing = nil
        }
        segment.close()
        segment = next
        syncer?.follow(segment)
        repeatSessions()
        snapshots.write(latest())
    }

    /// When the segment's file is no longer in the directory (removed, or replaced by another
    /// file), the records appended to it since are not durable: writes the newest state as a
    /// snapshot, moves a replacing file aside, and continues in a new segment.
    private func reestablishIfMoved(latest: () -> SnapshotContent<State>) throws(JournalFailure) {
        let placement = segment.placement()
        guard placement != .inPlace else { return }
        let name = PathName.fileName(of: segment.path)
        var what = "was removed"
        do throws(SystemError) {
            if placement == .replaced {
                let aside = segment.path + ".replaced"
                guard rename(segment.path, aside) == 0 else { throw SystemError("rename \(segment.path)") }
                what = "was replaced by another file (moved aside to \(PathName.fileName(of: aside)))"
            }
        } catch {
            throw failure(error)
        }
        let state = latest()
        if state.revision > 0 {
            let snapshot: [UInt8]
            do {
                snapshot = try WireJSON.encode(state)
            } catch {
                // What was written to the missing file is durable nowhere else: nothing more
                // may be acknowledged.
                let reason = "the journal \(name) \(what), and the state at revision \(state.revision) cannot be encoded as the snapshot that would replace it: \(error)"
                log("the journal cannot be written (\(reason)); stopping so that nothing unrecorded is acknowledged")
                throw JournalFailure(reason: reason)
            }
            do throws(SystemError) {
                try FileIO.writeAtomically(files.path(StateFiles.snapshotName(at: state.revision)), DurableRecord.encode(snapshot))
            } catch {
                throw failure(error)
            }
        }
        let next: Segment
        do throws(SystemError) {
            next = try Segment.open(files, startingAt: state.revision + 1, reservingAhead: policy == .always)
        } catch {
            throw failure(error)
        }
        segment.close()
        segment = next
        syncer?.follow(segment)
        repeatSessions()
        log("the journal \(name) \(what) while this core was writing it; wrote the state at revision \(state.revision) as a snapshot and continued in \(PathName.fileName(of: next.path)), so nothing acknowledged is lost")
    }
}

/// One journal file open for appending.
///
/// Under `--fsync always` a segment is laid out ahead of its records: zeros are written past
/// the last record, a ``reserveStep`` at a time, and records overwrite them. An `fdatasync`
/// after a write inside the file's length writes the record's pages alone, while one after a
/// write that grows the file also writes its inode (the new length): on our disks a third of
/// every sync. The zeros are cut off when the segment is done; recovery takes zeros after the
/// last record for the end of what was written (see ``Recovery``).
struct Segment {
    /// How far ahead zeros are laid out at a time.
    static let reserveStep = 1 << 20
    /// A reserve step of zeros: what is written ahead, and what recovery compares with.
    static let zeros = [UInt8](repeating: 0, count: reserveStep)

    /// Whether `bytes` holds only zeros from `start` to its end (true when `start` is past it).
    /// Compared with ``zeros`` by `memcmp`, a reserve step at a time: a byte at a time through
    /// `allSatisfy` took a tenth of a second for a 1 MiB reserve in a debug build.
    /// - Parameters:
    ///   - bytes: a journal file's bytes.
    ///   - start: where to begin.
    static func onlyZeros(_ bytes: [UInt8], from start: Int) -> Bool {
        bytes.withUnsafeBytes { file in
            zeros.withUnsafeBytes { zeros in
                var offset = max(0, start)
                while offset < file.count {
                    let length = min(zeros.count, file.count - offset)
                    if memcmp(file.baseAddress! + offset, zeros.baseAddress!, length) != 0 { return false }
                    offset += length
                }
                return true
            }
        }
    }

    let path: String
    let fd: Int32
    /// Bytes of records: where the next record goes.
    private(set) var size: Int
    /// The file's length: the records, then the zeros laid out ahead of them.
    private(set) var length: Int
    /// Whether zeros are laid out ahead of the records.
    private(set) var reservesAhead: Bool

    static func open(_ files: StateFiles, startingAt revision: UInt64, reservingAhead: Bool) throws(SystemError) -> Segment {
        let path = files.path(StateFiles.journalName(startingAt: revision))
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        try FileIO.syncDirectory(files.directory)
        let size = FileIO.size(path) ?? 0
        return Segment(path: path, fd: fd, size: size, length: size, reservesAhead: reservingAhead)
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        if reservesAhead, length < size + bytes.count { reserve(upTo: size + bytes.count) }
        try FileIO.writeAll(fd, bytes, at: size, what: path)
        size += bytes.count
        length = max(length, size)
    }

    /// Lays zeros out ahead until the file is at least `needed` bytes long. When they cannot
    /// be written (a full disk, a file size limit), the segment goes on without them: only the
    /// records must be written, and their own write says whether they can be.
    private mutating func reserve(upTo needed: Int) {
        while length < needed {
            do {
                try FileIO.writeAll(fd, Self.zeros, at: length, what: path)
            } catch {
                reservesAhead = false
                var status = stat()
                if fstat(fd, &status) == 0 { length = max(length, Int(status.st_size)) }
                return
            }
            length += Self.reserveStep
        }
    }

    func sync() throws(SystemError) {
        try FileIO.sync(fd, what: path)
    }

    /// Cuts off the zeros laid out ahead of the records (the segment is done with), and makes
    /// that durable.
    mutating func trimReserve() throws(SystemError) {
        guard length > size else { return }
        guard ftruncate(fd, off_t(size)) == 0 else { throw SystemError("truncate \(path)") }
        length = size
        try sync()
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

/// `batch`'s thread: syncs the current segment at least every 100 ms while it has unsynced
/// writes, so the thread that writes never waits for a disk. It works on duplicates of the
/// segments' descriptors, which only it closes, so the writer may move on at any time.
final class BackgroundSyncer: Sendable {
    private struct Work {
        /// The segment to follow next (a duplicate descriptor, and its path).
        var next: (fd: Int32, path: String)?
        var dirty = false
        var stopped = false
    }

    private let work = Mutex(Work())
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
        SystemThread.detach(name: "cama-sync") { [self] in run() }
    }

    /// Syncs `segment` from now on (the previous one is synced one last time first).
    func follow(_ segment: Segment) {
        let copy = dup(segment.fd)
        let replaced = work.withLock { work -> Int32? in
            defer { work.next = (copy, segment.path) }
            return work.next?.fd
        }
        // A segment the thread never took is closed here; it was synced by the writer.
        if let replaced { close(replaced) }
    }

    func markDirty() {
        work.withLock { $0.dirty = true }
    }

    /// Ends the thread after a last sync.
    func stop() {
        work.withLock { $0.stopped = true }
    }

    private func run() {
        var current: (fd: Int32, path: String)?
        while true {
            usleep(UInt32(FsyncPolicy.batchInterval.components.attoseconds / 1_000_000_000_000))
            let (next, dirty, stopped) = work.withLock { work in
                defer {
                    work.next = nil
                    work.dirty = false
                }
                return (work.next, work.dirty, work.stopped)
            }
            if let next {
                if let current {
                    fdatasync(current.fd)
                    close(current.fd)
                }
                current = next
            }
            if let current, dirty || stopped, fdatasync(current.fd) != 0 {
                log("could not sync \(current.path) (\(SystemError("fdatasync").reason)); the journal keeps writing")
            }
            if stopped {
                if let current { close(current.fd) }
                return
            }
        }
    }
}
