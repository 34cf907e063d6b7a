import FoundationEssentials
import Glibc
import Synchronization

/// Time, as reducers and effects see it: the wall-clock time, and a way to wait.
/// The core uses ``SystemTime``; tests use ``TestTime``, which moves only when told to.
///
/// Wall-clock time (not a monotonic clock) because what it measures must survive a restart:
/// a timer's deadline is a moment, written in the state.
public protocol TimeSource: Sendable {
    /// The current time.
    var now: Date { get }
    /// Waits `duration`; throws `CancellationError` if the task is cancelled first.
    func sleep(for duration: Duration) async throws
}

extension TimeSource {
    /// Waits until `date` (at once if it has passed). A date more than a year away is waited
    /// for a year at a time: the milliseconds to one centuries away do not fit an Int64.
    public func sleep(until date: Date) async throws {
        let year: Int64 = 365 * 86_400
        var seconds = date.timeIntervalSince(now)
        while seconds > Double(year) {
            try await sleep(for: .seconds(year))
            seconds = date.timeIntervalSince(now)
        }
        if seconds > 0 {
            try await sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
        } else {
            try Task.checkCancellation()
        }
    }
}

/// The real time, in whole microseconds.
public struct SystemTime: TimeSource {
    public init() {}

    /// Now, from the realtime clock, cut to whole microseconds: finer than anything a reducer
    /// measures, and a time the journal writes with every action in few digits, fast (see
    /// `JSONFragment.double`).
    public var now: Date {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
        return Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// Time that stands still until a test advances it: sleepers wake, in order, when the time they
/// wait for is reached.
public final class TestTime: TimeSource {
    private struct Sleeper {
        let id: UInt64
        let wake: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var cancelled: Set<UInt64> = []
    }

    private let state: Mutex<State>

    /// Starts at `start` (by default a fixed, round moment: 2026-01-01 00:00:00 UTC).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(now: start))
    }

    public var now: Date {
        state.withLock { $0.now }
    }

    /// How many tasks are sleeping now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled.remove(id) != nil { return true }
                    let wake = state.now.addingTimeInterval(duration.seconds)
                    state.sleepers.append(Sleeper(id: id, wake: wake, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose time comes, earliest first,
    /// and giving each woken task a moment to run (and perhaps sleep again) before going on.
    public func advance(by duration: Duration) async {
        // Effects started just before may not have gone to sleep yet: let them.
        await Self.settle()
        let target = now.addingTimeInterval(duration.seconds)
        while true {
            let due = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.indices.min(by: { state.sleepers[$0].wake < state.sleepers[$1].wake }),
                      state.sleepers[index].wake <= target else { return nil }
                let sleeper = state.sleepers.remove(at: index)
                state.now = max(state.now, sleeper.wake)
                return sleeper
            }
            guard let due else { break }
            due.continuation.resume()
            await Self.settle()
        }
        state.withLock { $0.now = max($0.now, target) }
        await Self.settle()
    }

    /// Lets other tasks run until they have (very probably) reached their next suspension.
    static func settle() async {
        for _ in 0 ..< 50 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(2))
        for _ in 0 ..< 50 { await Task.yield() }
    }
}

extension Duration {
    /// This duration in seconds, with its fraction.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// For messages people read: "250 ms" below a second, else seconds with one decimal when
    /// it has a fraction ("1.9 s", "10 s").
    package var readable: String {
        let value = seconds
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10)) s" : "\(tenths / 10) s"
    }
}
