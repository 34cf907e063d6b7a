import FoundationEssentials
import Wire

/// Why a state directory cannot be used as it is.
public struct RecoveryFailure: Error, CustomStringConvertible, Sendable {
    /// The file at fault, and the byte offset of the first bad record (if any).
    public var file: String
    public var offset: Int?
    public var reason: String
    /// Whether `core-daemon --repair` can fix it by truncating at `offset`.
    public var repairable: Bool

    public var description: String {
        let location = offset.map { "\(file) at offset \($0)" } ?? file
        return "\(location): \(reason)"
    }
}

/// What recovery found in a state directory: the newest valid snapshot and the journal records
/// after it, in revision order, ready to replay.
public struct RecoveredLog<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    public var snapshot: SnapshotContent<State>?
    /// The file the snapshot came from.
    public var snapshotFile: String?
    public var entries: [JournalEntry<Action>]
    /// A record cut short at the end of the last journal (a crash in the middle of a write):
    /// the file and offset where it starts, and how many bytes it has.
    public var tornTail: (file: String, offset: Int, bytes: Int)?
    /// Things worth a log line (a snapshot that could not be read, say).
    public var notes: [String]
    /// Journal files and their record counts, for `--check`.
    public var journals: [(file: String, records: Int, bytes: Int)]

    /// The revision the state will be at after replaying everything.
    public var lastRevision: UInt64 {
        entries.last?.revision ?? snapshot?.revision ?? 0
    }
}

/// Reading a state directory back: load the newest snapshot that is valid, then scan the
/// journal segments, checking every record's checksum and that revisions follow one another.
///
/// A record cut short at the very end of the last segment is a torn write: it is reported and
/// dropped (it was never acknowledged). Anything bad before that is corruption: recovery fails,
/// naming the file and offset, and the core refuses to start.
public enum Recovery {
    public static func load<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type = State.self, action: Action.Type = Action.self
    ) throws(RecoveryFailure) -> RecoveredLog<State, Action> {
        var log = RecoveredLog<State, Action>(snapshot: nil, snapshotFile: nil, entries: [], tornTail: nil, notes: [], journals: [])
        for entry in files.snapshots() {
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
        var expected = base + 1
        let segments = files.journals()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            let bytes: [UInt8]
            do {
                bytes = try FileIO.read(segment.path)
            } catch {
                throw RecoveryFailure(file: segment.name, offset: nil, reason: "cannot be read: \(error)", repairable: false)
            }
            var offset = 0
            var records = 0
            scanning: while true {
                switch DurableRecord.scan(bytes, at: offset) {
                case .end:
                    break scanning
                case let .record(payload, next):
                    let entry: JournalEntry<Action>
                    do {
                        entry = try WireJSON.decode(JournalEntry<Action>.self, from: payload)
                    } catch {
                        throw RecoveryFailure(file: segment.name, offset: offset, reason: "a record does not decode: \(describeDecodingFailure(error))", repairable: true)
                    }
                    records += 1
                    if entry.revision > base {
                        guard entry.revision == expected else {
                            throw RecoveryFailure(
                                file: segment.name, offset: offset,
                                reason: "revision \(entry.revision) where \(expected) was expected: records are missing", repairable: true)
                        }
                        log.entries.append(entry)
                        expected += 1
                    }
                    offset = next
                case let .truncated(available, _):
                    guard isLast else {
                        throw RecoveryFailure(file: segment.name, offset: offset, reason: "a record is cut short (\(available) bytes) before the end of the journal", repairable: true)
                    }
                    log.tornTail = (segment.name, offset, available)
                    break scanning
                case let .corrupt(reason):
                    // A damaged record that runs to the end of the last segment is a write the
                    // crash interrupted; anything followed by more data is corruption.
                    let declared = DurableRecord.headerLength + declaredLength(bytes, at: offset)
                    if isLast, offset + declared >= bytes.count {
                        log.tornTail = (segment.name, offset, bytes.count - offset)
                        break scanning
                    }
                    throw RecoveryFailure(file: segment.name, offset: offset, reason: "\(reason), and records follow it", repairable: true)
                }
            }
            log.journals.append((segment.name, records, bytes.count))
        }
        if let first = log.entries.first, first.revision != base + 1 {
            throw RecoveryFailure(file: segments.first?.name ?? "journal", offset: nil, reason: "the journal starts at revision \(first.revision) but the snapshot is at \(base)", repairable: false)
        }
        return log
    }

    private static func declaredLength(_ bytes: [UInt8], at offset: Int) -> Int {
        guard bytes.count - offset >= 4 else { return 0 }
        return Int((0 ..< 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) })
    }
}

extension RecoveredLog {
    /// The state, revision and ledger after replaying every entry through `reducer`, without
    /// running any effect. Each entry is replayed with the moment it was first applied at.
    public func replay<Environment: Sendable>(
        initial: State, reducer: Reducer<State, Action, Environment>, environment: Environment
    ) throws(RecoveryFailure) -> (state: State, revision: UInt64, ledger: ClientLedger) {
        var state = snapshot?.state ?? initial
        var ledger = snapshot?.ledger ?? ClientLedger()
        for entry in entries {
            do {
                let moment = Store<State, Action, Environment>.environment(environment, at: Date(timeIntervalSince1970: entry.at))
                try reducer.replay([entry.action], on: &state, environment: moment)
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
        return (state, lastRevision, ledger)
    }
}
