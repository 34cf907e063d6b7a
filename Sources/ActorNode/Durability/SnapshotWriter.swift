import Dispatch
import Glibc
import Synchronization
import Wire

/// Writes snapshots on a thread of its own, one at a time, then removes what they make
/// unnecessary. One generation is kept back: the previous snapshot and the journal segments
/// after it stay, so that recovery can fall back on them if the newest snapshot is damaged;
/// older files stay as history while the ``HistoryRetention`` keeps them, and then go.
final class SnapshotWriter<State: Codable & Sendable>: Sendable {
    private let files: StateFiles
    private let retention: HistoryRetention
    private let log: @Sendable (String) -> Void
    /// Nil while idle; while a snapshot is written, who waits for it to end.
    private let busy = Mutex<[@Sendable () -> Void]?>(nil)

    init(files: StateFiles, retention: HistoryRetention, log: @escaping @Sendable (String) -> Void) {
        self.files = files
        self.retention = retention
        self.log = log
    }

    /// Whether a snapshot is being written.
    var isBusy: Bool { busy.withLock { $0 != nil } }

    /// Starts writing `snapshot` (ignored if one is being written already).
    func write(_ snapshot: SnapshotContent<State>) {
        let started = busy.withLock { waiters -> Bool in
            guard waiters == nil else { return false }
            waiters = []
            return true
        }
        guard started else { return }
        SystemThread.detach(name: "cama-snapshot") { [self] in
            do {
                let bytes = DurableRecord.encode(try WireJSON.encode(snapshot))
                try FileIO.writeAtomically(files.path(StateFiles.snapshotName(at: snapshot.revision)), bytes)
                if retention.prune(files, now: snapshot.at) { try? FileIO.syncDirectory(files.directory) }
                log("snapshot at revision \(snapshot.revision) written (\(bytes.count) bytes)")
            } catch {
                log("could not write the snapshot at revision \(snapshot.revision) (\(error)); the journal keeps everything meanwhile")
            }
            let waiters = busy.withLock { waiters in
                defer { waiters = nil }
                return waiters ?? []
            }
            for waiter in waiters { waiter() }
        }
    }

    /// Returns once no snapshot is being written.
    func idle() async {
        await withCheckedContinuation { continuation in
            whenIdle { continuation.resume() }
        }
    }

    /// Blocks the calling thread (one of our own, never the cooperative pool) until no snapshot
    /// is being written.
    func waitIdle() {
        let idle = DispatchSemaphore(value: 0)
        whenIdle { idle.signal() }
        idle.wait()
    }

    private func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let running = busy.withLock { waiters -> Bool in
            guard waiters != nil else { return false }
            waiters!.append(body)
            return true
        }
        if !running { body() }
    }
}
