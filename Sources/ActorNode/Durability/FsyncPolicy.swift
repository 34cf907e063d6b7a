/// When the journal's records are forced to disk (`--fsync`), and so what an ack promises.
///
/// Every policy writes a record before its action is acknowledged, so a crash of the core
/// process loses nothing acknowledged. They differ on a crash of the machine (power, kernel):
package enum FsyncPolicy: String, Sendable, CaseIterable {
    /// Ack only once the record is on disk: nothing acknowledged is lost. Concurrent clients
    /// share one fsync (group commit).
    case always
    /// Sync at least every 100 ms: a machine crash loses at most the last 100 ms of acks.
    case batch
    /// Leave it to the operating system (typically up to 30 s): a machine crash can lose more.
    case never

    /// How often `batch` syncs.
    package static let batchInterval: Duration = .milliseconds(100)
    /// ``batchInterval`` in ``MonotonicClock`` nanoseconds, for what checks it at every turn.
    static let batchIntervalNanoseconds = MonotonicClock.nanoseconds(in: batchInterval)
}
