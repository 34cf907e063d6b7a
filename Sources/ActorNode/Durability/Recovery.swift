import FoundationEssentials
import Wire

/// Why a state directory cannot be used as it is.
package struct RecoveryFailure: Error, CustomStringConvertible, Sendable {
    /// The file at fault, and the byte offset of the first bad record (if any).
    package var file: String
    package var offset: Int?
    package var reason: String
    /// Whether `core-daemon --repair` can fix it by truncating at `offset`.
    package var repairable: Bool
    /// What recovery noticed before it failed (a damaged snapshot, say), for `--check`.
    package var notes: [String] = []

    package var description: String {
        let location = offset.map { "\(file) at offset \($0)" } ?? file
        return "\(location): \(reason)"
    }
}

/// What recovery found in a state directory: the newest valid snapshot and the journal records
/// after it, in revision order, ready to replay.
package struct RecoveredLog<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    package var snapshot: SnapshotContent<State>?
    /// The file the snapshot came from.
    package var snapshotFile: String?
    package var entries: [JournalEntry<Action>]
    /// A record cut short at the end of the last journal (a crash in the middle of a write):
    /// the file and offset where it starts, and how many bytes it has.
    package var tornTail: (file: String, offset: Int, bytes: Int)?
    /// Zeros after the last record of the last journal: laid out ahead of the records under
    /// `--fsync always` (see `Segment`), or blocks a crash never wrote. Nothing there was ever
    /// a record: a core cuts them off before it writes, without a word.
    package var reserve: (file: String, offset: Int, bytes: Int)?
    /// Things worth a log line (a snapshot that could not be read, say).
    package var notes: [String]
    /// Journal files and their record counts, for `--check`.
    package var journals: [(file: String, records: Int, bytes: Int)]

    /// The revision the state will be at after replaying everything.
    package var lastRevision: UInt64 {
        entries.last?.revision ?? snapshot?.revision ?? 0
    }
}

/// Reading a state directory back: load the newest snapshot that is valid, then scan the
/// journal segments, checking every record's checksum and that revisions follow one another.
///
/// A segment's records may be followed by zeros up to the end of the file: zeros laid out
/// ahead of the records (under `--fsync always`, cut off when the segment is done), or blocks
/// a crash never wrote. They end the segment's records.
///
/// The end of the last segment may also hold a torn write, a record a crash interrupted before
/// it was synced (so it was never acknowledged): a record cut short, or a damaged record
/// holding zeros where the write never reached the disk (JSON never contains a zero byte),
/// with nothing but zeros after it. It is reported and dropped. Anything else bad is
/// corruption, including a complete record at the end whose checksum fails without any such
/// sign (it may have been acknowledged): recovery fails, naming the file and offset, and the
/// core refuses to start.
package enum Recovery {
    /// Reads the directory back.
    /// - Parameters:
    ///   - files: the state directory's files.
    ///   - limit: the revision to stop at (`core-daemon --at`): the newest valid snapshot at or
    ///     before it, and the journal entries after that snapshot up to it; nil: everything.
    ///   - extent: how much of the journal to read (``Extent``).
    package static func load<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type = State.self, action: Action.Type = Action.self, upTo limit: UInt64? = nil,
        reading extent: Extent = .whole
    ) throws(RecoveryFailure) -> RecoveredLog<State, Action> {
        var log = RecoveredLog<State, Action>(snapshot: nil, snapshotFile: nil, entries: [], tornTail: nil, reserve: nil, notes: [], journals: [])
        do {
            try load(files, into: &log, upTo: limit, extent: extent)
        } catch {
            var failure = error
            failure.notes = log.notes
            throw failure
        }
        return log
    }

    /// How much of the journal a load reads.
    package enum Extent: Sendable {
        /// Every record of every segment, checked (`--check`, `--repair`).
        case whole
        /// What the state needs: not the segments the snapshot in use covers whole (those
        /// whose next segment starts at or before the revision after it, kept as history), and
        /// nothing past the limit. What a starting core reads, and a look back at a revision.
        case needed
    }

    /// The oldest revision the directory can still show: 0 (the empty state) while the journal
    /// starts at revision 1, else its oldest snapshot whose record is whole. Older revisions
    /// went when snapshots covered them (STATE.md, "Rotation and cleanup").
    /// - Parameter files: the state directory's files.
    package static func oldestRevision(_ files: StateFiles) -> UInt64 {
        if let first = files.journals().first, first.revision <= 1 { return 0 }
        return wholeSnapshots(files).map(\.revision).min() ?? 0
    }

    /// The snapshots whose file is one whole record (not decoded), newest first: those
    /// recovery can use.
    /// - Parameter files: the state directory's files.
    package static func wholeSnapshots(_ files: StateFiles) -> [StateFiles.Entry] {
        files.snapshots().filter { snapshot in
            guard let bytes = try? FileIO.read(snapshot.path), case let .record(_, next) = DurableRecord.scan(bytes, at: 0) else { return false }
            return next == bytes.count
        }
    }

    private static func load<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, into log: inout RecoveredLog<State, Action>, upTo limit: UInt64?, extent: Extent
    ) throws(RecoveryFailure) {
        for entry in files.snapshots() where limit.map({ entry.revision <= $0 }) ?? true {
            do {
                let bytes = try FileIO.read(entry.path)
                guard case let .record(payload, next) = DurableRecord.scan(bytes, at: 0), next == bytes.count else {
                    log.notes.append("\(entry.name) is damaged; trying an older snapshot")
                    continue
                }
                let snapshot = try WireJSON.decode(SnapshotContent<State>.self, from: payload)
                guard snapshot.revision == entry.revision else {
                    log.notes.append("\(entry.name) holds revision \(snapshot.revision), not \(entry.revision); trying an older snapshot")
                    continue
                }
                log.snapshot = snapshot
                log.snapshotFile = entry.name
                break
            } catch {
                log.notes.append("\(entry.name) could not be read (\(error)); trying an older snapshot")
            }
        }
        let base = log.snapshot?.revision ?? 0
        // The revision the next entry must have; nil past the last revision there can be (a
        // directory that names one: no arithmetic here may trap on what a file says).
        var expected: UInt64? = base < .max ? base + 1 : nil
        let segments = files.journals()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if extent == .needed, !isLast, segments[index + 1].revision <= expected ?? .max { continue }
            // Past the limit, nothing more is needed.
            if extent == .needed, let limit, segment.revision > limit, segment.revision > expected ?? .max { break }
            let bytes: [UInt8]
            do {
                bytes = try FileIO.read(segment.path)
            } catch {
                throw RecoveryFailure(file: segment.name, offset: nil, reason: "cannot be read: \(error)", repairable: false)
            }
            var offset = 0
            var records = 0
            var end = bytes.count
            scanning: while true {
                if offset < bytes.count, Segment.onlyZeros(bytes, from: offset) {
                    if isLast { log.reserve = (segment.name, offset, bytes.count - offset) }
                    end = offset
                    break scanning
                }
                switch DurableRecord.scan(bytes, at: offset) {
                case .end:
                    break scanning
                case let .record(payload, next):
                    if SessionRecord.isSession(payload) {
                        // Who a client is, for history: nothing to replay.
                        records += 1
                        offset = next
                        continue scanning
                    }
                    let entry: JournalEntry<Action>
                    do {
                        entry = try WireJSON.decode(JournalEntry<Action>.self, from: payload)
                    } catch {
                        throw RecoveryFailure(file: segment.name, offset: offset, reason: "a record does not decode: \(describeDecodingFailure(error))", repairable: true)
                    }
                    records += 1
                    if entry.revision > base {
                        guard let wanted = expected else {
                            throw RecoveryFailure(
                                file: segment.name, offset: offset,
                                reason: "revision \(entry.revision) after \(base), the last revision there can be", repairable: true)
                        }
                        if log.entries.isEmpty, entry.revision > wanted {
                            let missing = log.snapshot == nil && !log.notes.isEmpty
                                ? "the snapshot that held them is damaged"
                                : "no snapshot holds them"
                            throw RecoveryFailure(
                                file: segment.name, offset: offset,
                                reason: "the journal resumes at revision \(entry.revision), but revisions \(wanted) to \(entry.revision - 1) are missing: \(missing); restore the state directory from a backup, or move it away to start from the empty state",
                                repairable: false)
                        }
                        guard entry.revision == wanted else {
                            throw RecoveryFailure(
                                file: segment.name, offset: offset,
                                reason: "revision \(entry.revision) where \(wanted) was expected: records are missing", repairable: true)
                        }
                        if limit.map({ entry.revision <= $0 }) ?? true { log.entries.append(entry) }
                        expected = wanted < .max ? wanted + 1 : nil
                        if extent == .needed, let limit, entry.revision >= limit { return }
                    }
                    offset = next
                case let .truncated(available, _):
                    guard isLast else {
                        throw RecoveryFailure(file: segment.name, offset: offset, reason: "a record is cut short (\(available) bytes) before the end of the journal", repairable: true)
                    }
                    log.tornTail = (segment.name, offset, available)
                    break scanning
                case let .corrupt(reason):
                    // At the end of the last segment, zeros inside the record are a write that
                    // never reached the disk; without them the record was whole once.
                    // Zeros after the record's end are the reserve laid out ahead, or more of
                    // the same unwritten blocks.
                    let recordEnd = offset + DurableRecord.headerLength + DurableRecord.declaredLength(bytes, at: offset)
                    let reachesEnd = Segment.onlyZeros(bytes, from: recordEnd)
                    let payloadStart = min(bytes.count, offset + DurableRecord.headerLength)
                    let payloadEnd = min(bytes.count, max(recordEnd, payloadStart))
                    if isLast, reachesEnd, bytes[payloadStart ..< payloadEnd].contains(0) {
                        log.tornTail = (segment.name, offset, payloadEnd - offset)
                        if payloadEnd < bytes.count { log.reserve = (segment.name, payloadEnd, bytes.count - payloadEnd) }
                        end = payloadEnd
                        break scanning
                    }
                    let after = reachesEnd && isLast
                        ? "in the last record, which is complete and may have been acknowledged"
                        : "and records follow it"
                    throw RecoveryFailure(file: segment.name, offset: offset, reason: "\(reason), \(after)", repairable: true)
                }
            }
            log.journals.append((segment.name, records, end))
        }
    }
}

extension RecoveredLog {
    /// A log of these entries after this snapshot, as a replay takes it.
    /// - Parameters:
    ///   - snapshot: where the replay starts (nil: the initial state).
    ///   - entries: the journal's entries after it, in order.
    package init(snapshot: SnapshotContent<State>?, entries: [JournalEntry<Action>]) {
        self.init(snapshot: snapshot, snapshotFile: nil, entries: entries, tornTail: nil, reserve: nil, notes: [], journals: [])
    }

    /// The same log with the entries after `revision` left out.
    /// - Parameter revision: the last revision to keep (at least the snapshot's).
    package func upTo(_ revision: UInt64) -> RecoveredLog {
        var trimmed = self
        trimmed.entries = entries.filter { $0.revision <= revision }
        return trimmed
    }

    /// The state, revision, ledger and durable timers after replaying every entry through
    /// `reducer`, without running any effect. Each entry is replayed with the moment it was
    /// first applied at; what its effect does to the durable timers is noted, and an entry that
    /// is a timer's firing ends that timer.
    package func replay<Environment: Sendable>(
        initial: State, reducer: Reducer<State, Action, Environment>, environment: Environment
    ) throws(RecoveryFailure) -> (state: State, revision: UInt64, ledger: ClientLedger, timers: DurableTimers<Action>) {
        var state = snapshot?.state ?? initial
        var ledger = snapshot?.ledger ?? ClientLedger()
        var timers: DurableTimers<Action>
        do {
            timers = try DurableTimers(snapshot: snapshot?.timers)
        } catch {
            throw RecoveryFailure(
                file: snapshotFile ?? "snapshot", offset: nil,
                reason: "a durable timer's action does not decode (\(describeDecodingFailure(error))): the snapshot and this version of the app disagree",
                repairable: false)
        }
        for entry in entries {
            do {
                let moment = StoreKernel<State, Action, Environment>.environment(environment, at: Date(timeIntervalSince1970: entry.at))
                if let timer = entry.timer { timers.fired(EffectID(timer)) }
                let effect = try reducer(&state, entry.action, moment)
                if !effect.isNone { timers.note(effect) }
            } catch {
                throw RecoveryFailure(
                    file: "journal", offset: nil,
                    reason: "replaying revision \(entry.revision) was rejected (\(error.message)): the journal and this version of the app disagree",
                    repairable: false)
            }
            if let client = entry.client, let seq = entry.seq {
                ledger.record(client: client, seq: seq, revision: entry.revision)
            }
        }
        return (state, lastRevision, ledger, timers)
    }
}
