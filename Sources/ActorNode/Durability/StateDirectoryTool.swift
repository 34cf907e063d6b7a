import Glibc
import Wire

/// `core-daemon --check` and `--repair`: what a state directory holds, and cutting a damaged
/// journal back to its last good record.
package enum StateDirectoryTool {
    /// Replays recovered records through the app's reducers, throwing where they disagree (a
    /// journal written by another version of the app, say).
    package typealias Replay<State: Codable & Sendable, Action: Codable & Sendable> =
        @Sendable (RecoveredLog<State, Action>) throws(RecoveryFailure) -> Void

    /// A readable report of the directory; `healthy` is false when a core would refuse it (its
    /// files, or the directory itself when others can write to it), or when there is no such
    /// directory (a core would start from the empty state there, which is
    /// rarely what someone checking it meant).
    package static func check<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type, action: Action.Type, replay: Replay<State, Action>
    ) -> (report: [String], healthy: Bool) {
        var report = ["state directory: \(files.directory)"]
        guard files.exists else {
            report.append("it does not exist: a core started with it would create it and start from the empty state")
            return (report, false)
        }
        do {
            try StateDirectory.prepare(files.directory)
        } catch {
            return (report + [error.description, "the core refuses to start until that is fixed"], false)
        }
        let log: RecoveredLog<State, Action>
        do {
            log = try Recovery.load(files, state: state, action: action)
        } catch {
            report += error.notes
            return (report + refusal(error), false)
        }
        report += log.notes
        if let file = log.snapshotFile, let snapshot = log.snapshot {
            report.append("\(file): revision \(snapshot.revision), valid")
        } else {
            report.append("no snapshot: the journal starts from the empty state")
        }
        for journal in log.journals {
            report.append("\(journal.file): \(Wording.count(journal.records, "record")), \(Wording.count(journal.bytes, "byte"))")
        }
        if let reserve = log.reserve {
            report.append("\(reserve.file) has \(Wording.count(reserve.bytes, "byte")) of zeros after its records (laid out ahead of them, or never written); they are cut off at startup")
        }
        if let torn = log.tornTail {
            report.append("\(torn.file) ends with a torn record at offset \(torn.offset) (\(torn.bytes) bytes): a write a crash interrupted, never acknowledged; it is dropped at startup")
        }
        for leftover in files.leftovers() {
            report.append("\(leftover.name): left by an interrupted snapshot; removed at startup")
        }
        report += crashes(files)
        do {
            try replay(log)
        } catch {
            return (report + refusal(error), false)
        }
        report.append("revisions held: \(Recovery.oldestRevision(files)) to \(log.lastRevision) ('--at REV' shows the state at any of them)")
        report.append("replays through this version of the app to revision \(log.lastRevision): sound")
        return (report, true)
    }

    /// What crashed the core: a note the last run left (taken at the next start), and what the
    /// quarantine refuses. Not a fault of the directory: the app's, to fix.
    private static func crashes(_ files: StateFiles) -> [String] {
        var report: [String] = []
        if let size = FileIO.size(files.path(CrashNote.fileName)), size > 0, let text = try? FileIO.read(files.path(CrashNote.fileName)) {
            let crashed = CrashNote.entry(from: text, at: 0)
            report.append("\(CrashNote.fileName): the last run crashed (\(crashed.signal)) on \(crashed.summary); the next start refuses it from then on")
        }
        let (quarantine, notes) = Quarantine.load(files)
        report += notes
        for entry in quarantine.entries {
            report.append("\(Quarantine.fileName): refused for having crashed the core: \(entry.summary) (\(entry.signal))")
        }
        return report
    }

    private static func refusal(_ error: RecoveryFailure) -> [String] {
        [
            "\(error)",
            error.repairable
                ? "the core refuses to start; 'core-daemon --repair' truncates the journal at that offset (losing what follows)"
                : "the core refuses to start; this is not something --repair can fix",
        ]
    }

    /// Truncates the journal at the first bad record (and removes later segments, which would
    /// no longer follow), drops a torn tail, then replays what is left to make sure a core will
    /// start. Returns what it did; throws when it cannot repair.
    package static func repair<State: Codable & Sendable, Action: Codable & Sendable>(
        _ files: StateFiles, state: State.Type, action: Action.Type, replay: Replay<State, Action>
    ) throws(RecoveryFailure) -> [String] {
        var done: [String] = []
        // Each pass fixes one problem: a corrupt record, then perhaps the torn tail it leaves.
        for _ in 0 ..< 4 {
            let log: RecoveredLog<State, Action>
            do {
                log = try Recovery.load(files, state: state, action: action)
            } catch {
                guard error.repairable, let offset = error.offset else { throw error }
                try cut(files, file: error.file, at: offset, done: &done)
                continue
            }
            if let torn = log.tornTail {
                try cut(files, file: torn.file, at: torn.offset, done: &done)
                continue
            }
            try replay(log)
            done.append(done.isEmpty
                ? "nothing to repair: the state directory recovers to revision \(log.lastRevision)"
                : "the state directory now recovers to revision \(log.lastRevision)")
            return done
        }
        throw RecoveryFailure(file: files.directory, offset: nil, reason: "still damaged after \(done.count) repairs: \(done.joined(separator: "; "))", repairable: false)
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
