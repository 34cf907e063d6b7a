import ActorNode
import Glibc
import Wire

/// `recovery`: a state directory made from the input, read back as a core reads it at startup
/// (``Recovery/load(_:state:action:)``), replayed, checked and repaired as `core-daemon --check`
/// and `--repair` do (``StateDirectoryTool``). State and actions are ``JSONValue``s, the reducer
/// one that accepts anything, so that every record that is JSON decodes.
///
/// Recovery must never trap: it recovers or throws a ``RecoveryFailure``. When it recovers,
/// the records it returns follow one another from the snapshot's revision. When `--repair`
/// says it repaired the directory, recovery then succeeds without a torn tail.
///
/// The input: a byte saying which files there are (a snapshot, one or two journal segments,
/// and a file whose name is made of bytes of the input, which the core never writes) and how
/// they are written; a byte for each file's revision in its name (0 to 239, or one of the
/// extremes); the odd name's bytes; a two-byte length for each file but the last; then the
/// files' bytes in that order, the last taking the rest. A file's bytes are written as they
/// are, or (bit 3 of the first byte) as records holding each line of them: libFuzzer cannot
/// forge checksums, and this way the payloads themselves, journal entries and snapshots, are
/// fuzzed.
public enum RecoveryTarget: FuzzTarget {
    public static let name = "recovery"
    public static let summary = "Recovery.load, replay, --check and --repair of a state directory made from the input: no trap, only RecoveryFailure"

    /// The revisions a file's name can carry besides 0 to 239.
    static let extremeRevisions: [UInt64] = [UInt64.max, UInt64.max - 1, UInt64(Int64.max), UInt64(Int64.max) + 1, 1 << 32, 1_000_000]

    /// An environment with nothing in it.
    struct NoEnvironment: Sendable {}

    /// A reducer that accepts every action and changes nothing.
    static let reducer = Reducer<JSONValue, JSONValue, NoEnvironment> { _, _, _ in .none }

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        var choices = FuzzInput(input)
        let layout = choices.byte()
        var names: [String] = []
        if layout & 1 == 1 { names.append(StateFiles.snapshotName(at: revision(choices.byte()))) }
        for _ in 0 ..< (layout >> 1 & 1) + (layout >> 2 & 1) {
            let name = StateFiles.journalName(startingAt: revision(choices.byte()))
            if !names.contains(name) { names.append(name) }
        }
        if layout & 0b1_0000 != 0 {
            // A name the core never writes, for the parsing of names (`journal-+5.log`).
            let middle = choices.bytes(choices.choice(below: 24)).filter { $0 != 0 && $0 != UInt8(ascii: "/") }
            let name = (layout & 0b10_0000 != 0 ? "snapshot-" : "journal-") + String(decoding: middle, as: UTF8.self) + (layout & 0b10_0000 != 0 ? ".snap" : ".log")
            if !names.contains(name), name.utf8.count < 255 { names.append(name) }
        }
        let lengths = names.dropLast().map { _ in choices.uint16() }
        var contents = lengths.map { choices.bytes($0) }
        contents.append(choices.rest())

        let directory = try TemporaryStateDirectory()
        defer { directory.remove() }
        let framesLines = layout & 0b1000 != 0
        for (name, bytes) in zip(names, contents) {
            try directory.write(framesLines ? records(ofLines: bytes) : bytes, to: name)
        }
        let files = StateFiles(directory: directory.path)
        try checkLoad(files)
        _ = StateDirectoryTool.check(files, state: JSONValue.self, action: JSONValue.self, replay: replay)
        try checkRepair(files)
    }

    /// Each line of `bytes` (JSON as the core writes it holds no raw newline) as a record;
    /// whatever follows the last newline is appended as it is, a torn tail or a reserve.
    static func records(ofLines bytes: [UInt8]) -> [UInt8] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let tail = lines.removeLast()
        return lines.flatMap { DurableRecord.encode(Array($0)) } + tail
    }

    static func revision(_ byte: UInt8) -> UInt64 {
        byte < 0xF0 ? UInt64(byte) : extremeRevisions[Int(byte & 0x0F) % extremeRevisions.count]
    }

    static let replay: StateDirectoryTool.Replay<JSONValue, JSONValue> = { (log: RecoveredLog<JSONValue, JSONValue>) throws(RecoveryFailure) in
        _ = try log.replay(initial: .null, reducer: reducer, environment: NoEnvironment())
    }

    static func checkLoad(_ files: StateFiles) throws(FuzzFinding) {
        let log: RecoveredLog<JSONValue, JSONValue>
        do {
            log = try Recovery.load(files, state: JSONValue.self, action: JSONValue.self)
        } catch {
            return
        }
        var expected = log.snapshot?.revision ?? 0
        for entry in log.entries {
            guard expected < UInt64.max, entry.revision == expected + 1 else {
                throw FuzzFinding("recovery returned revision \(entry.revision) after \(expected)")
            }
            expected = entry.revision
        }
        guard log.lastRevision == expected else {
            throw FuzzFinding("recovery says the last revision is \(log.lastRevision), its records end at \(expected)")
        }
        do {
            try replay(log)
        } catch {
            // A record the app's reducers refuse: a failure recovery reports, not a finding.
        }
        try checkLoad(files, upTo: log.lastRevision / 2, whole: log)
        try checkSkipping(files, whole: log)
        try checkHistory(files, whole: log)
        // What history retention keeps nothing of goes; a core still starts where it did.
        HistoryRetention.none.prune(files, now: 0)
        try checkSkipping(files, whole: log)
    }

    /// A core starting reads only the segments after its snapshot: where the whole directory
    /// loads, so does that, to the same snapshot and entries.
    static func checkSkipping(_ files: StateFiles, whole: RecoveredLog<JSONValue, JSONValue>) throws(FuzzFinding) {
        let log: RecoveredLog<JSONValue, JSONValue>
        do {
            log = try Recovery.load(files, state: JSONValue.self, action: JSONValue.self, reading: .needed)
        } catch {
            throw FuzzFinding("the whole directory loads, and leaving out what its snapshot covers fails: \(error)")
        }
        guard log.snapshot?.revision == whole.snapshot?.revision, log.entries.map(\.revision) == whole.entries.map(\.revision) else {
            throw FuzzFinding("leaving out what the snapshot covers, recovery gives revisions \(log.entries.map(\.revision)) from \(log.snapshot?.revision ?? 0), not \(whole.entries.map(\.revision)) from \(whole.snapshot?.revision ?? 0)")
        }
    }

    /// `history`: what it lists goes up in revision order, and after the snapshot recovery
    /// starts from it is exactly what recovery replays.
    static func checkHistory(_ files: StateFiles, whole: RecoveredLog<JSONValue, JSONValue>) throws(FuzzFinding) {
        var listed: [UInt64] = []
        do {
            try JournalHistory.read(files, HistoryRequest(), through: whole.lastRevision) { item in
                listed.append(item.revision)
                return true
            }
        } catch {
            return
        }
        guard zip(listed, listed.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw FuzzFinding("history listed revisions out of order: \(listed)")
        }
        let base = whole.snapshot?.revision ?? 0
        guard listed.filter({ $0 > base }) == whole.entries.map(\.revision) else {
            throw FuzzFinding("after revision \(base), history listed \(listed.filter { $0 > base }), recovery replays \(whole.entries.map(\.revision))")
        }
    }

    /// `--at`: loaded up to `limit`, the directory gives a snapshot at or before it and the
    /// entries after that snapshot up to it, in order; where the whole load's snapshot is at
    /// or before the limit, the same entries as the whole load's, trimmed.
    static func checkLoad(_ files: StateFiles, upTo limit: UInt64, whole: RecoveredLog<JSONValue, JSONValue>) throws(FuzzFinding) {
        let log: RecoveredLog<JSONValue, JSONValue>
        do {
            log = try Recovery.load(files, state: JSONValue.self, action: JSONValue.self, upTo: limit)
        } catch {
            // An older snapshot may be damaged where the newest was not, or missing revisions
            // show only from an older starting point: a failure, reported, not a trap.
            return
        }
        if let snapshot = log.snapshot, snapshot.revision > limit {
            throw FuzzFinding("loaded up to \(limit), recovery started from the snapshot at \(snapshot.revision)")
        }
        var expected = log.snapshot?.revision ?? 0
        for entry in log.entries {
            guard entry.revision == expected + 1, entry.revision <= limit else {
                throw FuzzFinding("loaded up to \(limit), recovery returned revision \(entry.revision) after \(expected)")
            }
            expected = entry.revision
        }
        if let snapshot = whole.snapshot, snapshot.revision <= limit, log.snapshot?.revision == snapshot.revision {
            guard log.entries.map(\.revision) == whole.upTo(limit).entries.map(\.revision) else {
                throw FuzzFinding("loaded up to \(limit), the entries differ from the whole load's, trimmed")
            }
        }
    }

    static func checkRepair(_ files: StateFiles) throws(FuzzFinding) {
        do {
            _ = try StateDirectoryTool.repair(files, state: JSONValue.self, action: JSONValue.self, replay: replay)
        } catch {
            return
        }
        do {
            let log = try Recovery.load(files, state: JSONValue.self, action: JSONValue.self)
            if let torn = log.tornTail {
                throw FuzzFinding("after --repair, \(torn.file) still ends with a torn record at \(torn.offset)")
            }
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("--repair says it repaired the directory, but recovery then says: \(error)")
        }
    }
}
