import Glibc
import Wire

/// `core-daemon --check` and `--repair`: what a state directory holds, and cutting a damaged
/// journal back to its last good record.
public enum StateDirectoryTool {
    /// A readable report of the directory; `healthy` is false when recovery would refuse it.
    public static func check<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type, action: Action.Type
    ) -> (report: [String], healthy: Bool) {
        var report = ["state directory: \(files.directory)"]
        do {
            let log = try Recovery.load(files, state: state, action: action)
            report += log.notes
            if let file = log.snapshotFile, let snapshot = log.snapshot {
                report.append("\(file): revision \(snapshot.revision), valid")
            } else {
                report.append("no snapshot: the journal starts from the empty state")
            }
            for journal in log.journals {
                report.append("\(journal.file): \(journal.records) records, \(journal.bytes) bytes")
            }
            if let torn = log.tornTail {
                report.append("\(torn.file) ends with a torn record at offset \(torn.offset) (\(torn.bytes) bytes): a write a crash interrupted, never acknowledged; it is dropped at startup")
            }
            report.append("recovers to revision \(log.lastRevision)")
            return (report, true)
        } catch {
            report.append("\(error)")
            report.append(error.repairable
                ? "the core refuses to start; 'core-daemon --repair' truncates the journal at that offset (losing what follows)"
                : "the core refuses to start; this is not something --repair can fix")
            return (report, false)
        }
    }

    /// Truncates the journal at the first bad record (and removes later segments, which would
    /// no longer follow), then checks again. Returns what it did; throws when it cannot repair.
    public static func repair<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type, action: Action.Type
    ) throws(RecoveryFailure) -> [String] {
        var done: [String] = []
        for _ in 0 ..< 2 {
            do {
                let log = try Recovery.load(files, state: state, action: action)
                if let torn = log.tornTail {
                    try cut(files, file: torn.file, at: torn.offset, done: &done)
                    continue
                }
                done.append("the journal is sound: it recovers to revision \(log.lastRevision)")
                return done
            } catch {
                guard error.repairable, let offset = error.offset else { throw error }
                try cut(files, file: error.file, at: offset, done: &done)
            }
        }
        let log = try Recovery.load(files, state: state, action: action)
        done.append("the journal recovers to revision \(log.lastRevision)")
        return done
    }

    private static func cut(_ files: StateFiles, file: String, at offset: Int, done: inout [String]) throws(RecoveryFailure) {
        let path = files.path(file)
        let size = FileIO.size(path) ?? offset
        do {
            try FileIO.truncate(path, to: offset)
        } catch {
            throw RecoveryFailure(file: file, offset: offset, reason: "cannot truncate: \(error)", repairable: false)
        }
        done.append("truncated \(file) at offset \(offset) (dropped \(size - offset) bytes)")
        guard let cutSegment = files.journals().first(where: { $0.name == file }) else { return }
        for later in files.journals() where later.revision > cutSegment.revision {
            unlink(later.path)
            done.append("removed \(later.name), which followed the damaged record")
        }
        try? FileIO.syncDirectory(files.directory)
    }
}
