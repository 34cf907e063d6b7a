import Glibc
import Wire

/// The core's claim on its state directory: created 0700, locked so that one core at a time
/// writes it, and recovered into the state to start from.
struct StateDirectorySetup<App: CoreApp>: Sendable {
    let files: StateFiles
    let lock: SocketLock

    /// The lock file of a state directory.
    static func lockPath(_ directory: String) -> String { directory + "/core.lock" }

    /// Creates and locks the directory.
    static func claim(_ directory: String) throws(CommandFailure) -> StateDirectorySetup {
        do {
            try StateDirectory.prepare(directory)
        } catch {
            throw CommandFailure(.rejected, error.description)
        }
        do {
            let lock = try SocketLock.acquire(path: lockPath(directory))
            return StateDirectorySetup(files: StateFiles(directory: directory), lock: lock)
        } catch {
            if case let .held(_, pid) = error {
                let owner = pid.map { " (pid \($0))" } ?? ""
                throw CommandFailure(.rejected, "another core uses the state directory \(directory)\(owner); stop it first, or choose another --state-dir")
            }
            throw CommandFailure(.rejected, "cannot lock the state directory \(directory): \(error)")
        }
    }

    /// Replays what recovery found through the app's reducers, effects off, for `--check` and
    /// `--repair`: a journal this version of the app cannot replay would stop a core too.
    static func replay(_ recovered: RecoveredLog<App.State, App.Action>) throws(RecoveryFailure) {
        _ = try recovered.replay(initial: App.initialState, reducer: App.reducer, environment: App.environment(CoreServices()))
    }

    /// The inputs that crashed the core before, with the one that ended the last run, if a
    /// crash note says so (logged once, here, and kept in the quarantine's file).
    func quarantine(log: (String) -> Void) -> Quarantine {
        var (quarantine, notes) = Quarantine.load(files)
        for note in notes { log(note) }
        let crashed: Quarantine.Entry?
        do {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            crashed = try CrashNote.take(files, now: Double(now.tv_sec))
        } catch {
            log("cannot read \(CrashNote.fileName): \(error); if the last run crashed, what it was applying is not known")
            crashed = nil
        }
        guard let crashed else { return quarantine }
        quarantine.add(crashed)
        let kept: String
        do {
            try quarantine.save(files)
            kept = "; it is refused from now on (crashed_core), as listed in \(Quarantine.fileName)"
        } catch {
            kept = "; it is refused by this run (crashed_core), but \(Quarantine.fileName) cannot be written: \(error)"
        }
        if crashed.action == nil, crashed.frame == nil, crashed.client == nil {
            log("the last run crashed (\(crashed.signal)), and its crash note cannot be read")
        } else {
            log("the last run crashed (\(crashed.signal)) on \(crashed.summary)\(kept)")
        }
        return quarantine
    }

    /// Loads the snapshot and journal, drops a torn last record, and replays to the state the
    /// core starts from.
    func recover(environment: App.Environment, log: (String) -> Void) throws(CommandFailure) -> (state: App.State, revision: UInt64, ledger: ClientLedger, timers: DurableTimers<App.Action>) {
        do {
            let recovered = try Recovery.load(files, state: App.State.self, action: App.Action.self, reading: .needed)
            for note in recovered.notes { log(note) }
            for leftover in files.leftovers() where unlink(leftover.path) == 0 {
                log("removed \(leftover.name), left by an interrupted snapshot")
            }
            if let torn = recovered.tornTail {
                try FileIO.truncate(files.path(torn.file), to: torn.offset)
                log("dropped a torn record at \(torn.file) offset \(torn.offset) (\(torn.bytes) bytes): a write a crash interrupted, never acknowledged")
            } else if let reserve = recovered.reserve {
                // Zeros laid out ahead of the records: cut off, so that the journal's next
                // records follow the last one.
                try FileIO.truncate(files.path(reserve.file), to: reserve.offset)
            }
            let result = try recovered.replay(initial: App.initialState, reducer: App.reducer, environment: environment)
            let source = recovered.snapshotFile.map { "\($0) and " } ?? ""
            let timers = result.timers.isEmpty ? "" : "; re-arming \(Wording.count(result.timers.scheduled.count, "durable timer"))"
            log("recovered revision \(result.revision) from \(source)\(Wording.count(recovered.entries.count, "journal record"))\(timers)")
            return result
        } catch let failure as RecoveryFailure {
            for note in failure.notes { log(note) }
            let advice = failure.repairable
                ? "'\(App.program) --check' shows the damage; '\(App.program) --repair' truncates the journal there"
                : "see '\(App.program) --check'"
            throw CommandFailure(.rejected, "cannot recover the state from \(files.directory): \(failure); \(advice)")
        } catch {
            throw CommandFailure(.rejected, "cannot recover the state from \(files.directory): \(error)")
        }
    }
}
