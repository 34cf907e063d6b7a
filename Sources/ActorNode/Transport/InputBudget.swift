import Synchronization

/// A process-wide budget for bytes read from clients that the core has not finished with yet
/// (partial frames, frames waiting, messages on their way to the core), so that many clients
/// sending large frames at once cannot take the core's memory.
///
/// Under ``Limits/soft`` every connection reads freely. Above it, a connection that holds more
/// than its fair share (the soft limit divided among the connections holding anything) and has
/// a whole frame waiting stops reading until the total falls back under three quarters of the
/// soft limit; a connection in the middle of a frame goes on, since only a whole frame can be
/// processed and released. Above ``Limits/hard``, the connections holding the most are
/// disconnected, biggest first, until the total is back under it. A client that sends small
/// frames and reads its answers never comes near its share.
///
/// Connections report what they read (``add(_:bytes:hasWholeFrame:)``); the server reports
/// what the core has finished with (``release(_:bytes:)``). What the budget decides for other
/// connections than the caller (resume, disconnect) comes back as actions to run once the
/// caller holds no lock.
public final class InputBudget: Sendable {
    /// The two thresholds, in bytes.
    public struct Limits: Sendable, Equatable {
        public var soft: Int
        public var hard: Int

        /// - Parameters:
        ///   - soft: above this, the biggest holders stop reading.
        ///   - hard: above this, the biggest holders are disconnected; at least `soft`.
        public init(soft: Int, hard: Int) {
            self.soft = soft
            self.hard = max(hard, soft)
        }

        /// 64 MiB soft, four times that hard.
        public static let `default` = Limits(soft: 64 << 20, hard: 256 << 20)
    }

    /// Something that holds budget: a connection, told to resume reading or to stop for good.
    public protocol Holder: AnyObject, Sendable {
        /// The total fell back: start reading again.
        func resumeReadingWithinBudget()
        /// This holder was chosen to be disconnected; `held` is what it held, `limit` the hard
        /// limit.
        func disconnectOverBudget(held: Int, limit: Int)
    }

    /// What a connection that just read should do.
    public enum Verdict: Equatable, Sendable {
        case keepReading
        /// Stop reading until told to resume.
        case pause
    }

    public let limits: Limits
    private let state = Mutex(Ledger())

    private struct Ledger {
        var total = 0
        var holders: [ObjectIdentifier: Entry] = [:]

        struct Entry {
            let holder: any Holder
            var bytes = 0
            var paused = false
        }
    }

    /// - Parameter limits: the soft and hard limits.
    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Bytes held by all connections now.
    public var total: Int { state.withLock { $0.total } }

    /// Records `bytes` just read by `holder`, and says whether it may read on. Disconnections of
    /// other holders, when the hard limit is passed, are appended to `actions` (to run once the
    /// caller's locks are released); the caller itself is never among them if another holds more.
    /// - Parameters:
    ///   - holder: the connection that read.
    ///   - bytes: how many bytes it read.
    ///   - hasWholeFrame: whether it has at least one whole frame waiting (so that pausing it
    ///     cannot deadlock: that frame will be processed and released).
    ///   - actions: where to put what must happen to other holders.
    public func add(_ holder: any Holder, bytes: Int, hasWholeFrame: Bool, actions: inout [@Sendable () -> Void]) -> Verdict {
        let key = ObjectIdentifier(holder)
        return state.withLock { ledger in
            ledger.total += bytes
            ledger.holders[key, default: Ledger.Entry(holder: holder)].bytes += bytes
            if ledger.total > limits.hard {
                disconnectBiggest(&ledger, actions: &actions)
            }
            guard ledger.total > limits.soft, hasWholeFrame, let entry = ledger.holders[key] else { return .keepReading }
            let holding = ledger.holders.values.filter { $0.bytes > 0 }.count
            guard entry.bytes > limits.soft / max(1, holding) else { return .keepReading }
            ledger.holders[key]?.paused = true
            return .pause
        }
    }

    /// Records that the core finished with `bytes` of what `holder` read; returns the holders
    /// to resume (run ``Holder/resumeReadingWithinBudget()`` on them without holding a lock).
    /// - Parameters:
    ///   - holder: the connection the bytes came from.
    ///   - bytes: how many.
    public func release(_ holder: any Holder, bytes: Int) -> [any Holder] {
        state.withLock { ledger in
            let key = ObjectIdentifier(holder)
            guard var entry = ledger.holders[key] else { return [] }
            let released = min(bytes, entry.bytes)
            entry.bytes -= released
            ledger.total -= released
            ledger.holders[key] = entry
            return resumable(&ledger)
        }
    }

    /// Forgets a connection that closed, with everything it held; returns the holders to resume.
    /// - Parameter holder: the connection.
    public func remove(_ holder: any Holder) -> [any Holder] {
        state.withLock { ledger in
            guard let entry = ledger.holders.removeValue(forKey: ObjectIdentifier(holder)) else { return [] }
            ledger.total -= entry.bytes
            return resumable(&ledger)
        }
    }

    private func resumable(_ ledger: inout Ledger) -> [any Holder] {
        guard ledger.total <= limits.soft / 4 * 3 else { return [] }
        var resumed: [any Holder] = []
        for (key, entry) in ledger.holders where entry.paused {
            ledger.holders[key]?.paused = false
            resumed.append(entry.holder)
        }
        return resumed
    }

    private func disconnectBiggest(_ ledger: inout Ledger, actions: inout [@Sendable () -> Void]) {
        let limit = limits.hard
        for (key, entry) in ledger.holders.sorted(by: { $0.value.bytes > $1.value.bytes }) {
            guard ledger.total > limit, entry.bytes > 0 else { break }
            ledger.total -= entry.bytes
            ledger.holders.removeValue(forKey: key)
            let holder = entry.holder
            let held = entry.bytes
            actions.append { holder.disconnectOverBudget(held: held, limit: limit) }
        }
    }
}
