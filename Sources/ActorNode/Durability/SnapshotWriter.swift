import Dispatch
import Glibc
import Synchronization
import Wire

/// Writes snapshots on a thread of its own, one at a time, then removes what they make
/// unnecessary. One generation is kept back: the previous snapshot and the journal segments
/// after it stay, so that recovery can fall back on them if the newest snapshot is damaged;
/// anything older goes.
final class SnapshotWriter<State: Codable & Sendable>: Sendable {
    private let files: StateFiles
    private let log: @Sendable (String) -> Void
    /// Nil while idle; while a snapshot is written, who waits for it to end.
    private let busy = Mutex<[@Sendable () -> Void]?>(nil)

    init(files: StateFiles, log: @escaping @Sendable (String) -> Void) {
        self.files = files
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
                removeCovered(by: snapshot.revision)
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

    private func removeCovered(by revision: UInt64) {
        // The snapshot before this one is the fallback; only what it covers can go.
        guard let previous = files.snapshots().first(where: { $0.revision < revision }) else { return }
        var removed = false
        for snapshot in files.snapshots() where snapshot.revision < previous.revision {
            removed = unlinkFile(snapshot.path) || removed
        }
        // A segment is covered when the next one starts at or before previous + 1.
        let segments = files.journals()
        for (index, segment) in segments.enumerated() where index + 1 < segments.count && segments[index + 1].revision <= previous.revision + 1 {
            removed = unlinkFile(segment.path) || removed
        }
        if removed {
            try? FileIO.syncDirectory(files.directory)
        }
    }

    private func unlinkFile(_ path: String) -> Bool {
        unlink(path) == 0
    }
}
