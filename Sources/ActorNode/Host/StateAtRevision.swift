import Wire

/// The state at any revision a state directory holds: from the newest whole snapshot at or
/// before it and the journal after that, replayed through the app's reducer with effects off.
/// It reads and never writes, so the core may be running: `core-daemon --at REV` calls it, and
/// so does a running core answering `state --at` and `diff`, on a thread of its own.
enum StateAtRevision<App: CoreApp> {
    /// The state at `revision`.
    /// - Parameters:
    ///   - revision: the revision wanted.
    ///   - files: the state directory.
    ///   - newest: the newest revision the directory holds, when the caller knows it (a
    ///     running core does): then only what that revision needs is read. Else the directory
    ///     is read as a core would read it first (what it holds, and whether it can be read).
    /// - Returns: the state, and its revision.
    static func state(at revision: UInt64, in files: StateFiles, newest: UInt64? = nil) throws(LookBackFailure) -> (state: App.State, revision: UInt64) {
        let directory = files.directory
        guard files.exists else {
            throw LookBackFailure(.failed, "the state directory \(directory) does not exist; check the --state-dir you meant")
        }
        let oldest = Recovery.oldestRevision(files)
        guard revision >= oldest else {
            throw LookBackFailure(.notHeld, "revision \(revision) is older than \(directory) holds: the oldest it can show is \(oldest) (older ones went when newer snapshots covered them)")
        }
        var whole: RecoveredLog<App.State, App.Action>?
        if newest == nil {
            do throws(RecoveryFailure) {
                whole = try Recovery.load(files, state: App.State.self, action: App.Action.self, reading: .needed)
            } catch {
                throw LookBackFailure(.failed, "cannot show revision \(revision) of \(directory): \(error.reason)")
            }
        }
        let last = newest ?? whole?.lastRevision ?? 0
        guard revision <= last else {
            throw LookBackFailure(.notHeld, "revision \(revision) is past the newest one \(directory) holds, \(last)")
        }
        var log: RecoveredLog<App.State, App.Action>
        if let whole, revision >= whole.snapshot?.revision ?? 0 {
            log = whole.upTo(revision)
        } else {
            do throws(RecoveryFailure) {
                log = try Recovery.load(files, state: App.State.self, action: App.Action.self, upTo: revision, reading: .needed)
            } catch {
                throw LookBackFailure(.failed, "cannot show revision \(revision) of \(directory): \(error.reason)")
            }
        }
        guard log.lastRevision == revision else {
            throw LookBackFailure(.failed, "cannot show revision \(revision) of \(directory): its journal ends at \(log.lastRevision)")
        }
        do throws(RecoveryFailure) {
            let replayed = try log.replay(initial: App.initialState, reducer: App.reducer, environment: App.environment(CoreServices()))
            return (replayed.state, replayed.revision)
        } catch {
            throw LookBackFailure(.failed, "cannot show revision \(revision) of \(directory): \(error)")
        }
    }
}
