import Glibc

/// The system's monotonic clock, read with one call and kept as one 64-bit number of
/// nanoseconds: the event loop's clock (it reads it two or three times a turn: the due timers,
/// the wait until the next), the journal's, and, as ``Instant``, the client's. `ContinuousClock`
/// keeps its instants as 128-bit attoseconds, opaque outside the standard library: turning one
/// into the milliseconds `epoll_wait` takes cost about 500 instructions a turn (callgrind).
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary moment (the machine's start), never going back.
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// The reading `delay` from now; a negative delay is now, one too far to count is the end
    /// of time.
    /// - Parameter delay: how long from now.
    static func deadline(after delay: Duration) -> UInt64 {
        let (sum, carry) = now.addingReportingOverflow(nanoseconds(in: delay))
        return carry ? .max : sum
    }

    /// `duration` in nanoseconds: none for a negative one, all of them (`UInt64.max`) for one
    /// too long to count.
    /// - Parameter duration: a duration.
    static func nanoseconds(in duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (sum, carry) = whole.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000))
        return carry ? .max : sum
    }

    /// The milliseconds `epoll_wait` should wait for `deadline`, rounded up so that a wait
    /// never ends just before it; -1 (for ever) when there is none, 0 when it has passed.
    /// - Parameter deadline: a reading of this clock, if any.
    static func milliseconds(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return -1 }
        return milliseconds(until: deadline, from: now)
    }

    /// ``milliseconds(until:)`` as of the reading `now`.
    static func milliseconds(until deadline: UInt64, from now: UInt64) -> Int32 {
        guard deadline > now else { return 0 }
        let left = deadline - now
        return Int32(min(left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1), UInt64(Int32.max)))
    }
}

extension MonotonicClock {
    /// A reading of the clock kept as a value: the deadlines of the client's machine and of the
    /// commands that drive it. One 64-bit number, where the standard library's
    /// `ContinuousClock.Instant` is opaque outside it: every copy, comparison and optional of
    /// one went through its value witnesses, and a struct holding one (the client's machine)
    /// was copied and destroyed through them too (a watcher: some 1,000 instructions a state
    /// printed, callgrind).
    package struct Instant: Comparable, Hashable, Sendable {
        /// Nanoseconds since the clock's start.
        package var nanoseconds: UInt64

        /// - Parameter nanoseconds: a reading of ``MonotonicClock/now``.
        package init(nanoseconds: UInt64) {
            self.nanoseconds = nanoseconds
        }

        /// The clock now.
        package static var now: Instant { Instant(nanoseconds: MonotonicClock.now) }

        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

        /// `duration` later (earlier, if it is negative); the clock's start and end bound it.
        package static func + (instant: Instant, duration: Duration) -> Instant {
            let (seconds, attoseconds) = duration.components
            if seconds < 0 || (seconds == 0 && attoseconds < 0) {
                let back = MonotonicClock.nanoseconds(in: .zero - duration)
                return Instant(nanoseconds: instant.nanoseconds > back ? instant.nanoseconds - back : 0)
            }
            let (sum, carry) = instant.nanoseconds.addingReportingOverflow(MonotonicClock.nanoseconds(in: duration))
            return Instant(nanoseconds: carry ? .max : sum)
        }

        package static func - (instant: Instant, duration: Duration) -> Instant {
            instant + (.zero - duration)
        }

        package static func += (instant: inout Instant, duration: Duration) {
            instant = instant + duration
        }

        /// How long from `start` to `end` (negative if `end` is earlier).
        package static func - (end: Instant, start: Instant) -> Duration {
            start.duration(to: end)
        }

        /// How long from this instant to `other` (negative if `other` is earlier).
        package func duration(to other: Instant) -> Duration {
            other.nanoseconds >= nanoseconds
                ? .nanoseconds(Int64(clamping: other.nanoseconds - nanoseconds))
                : .zero - .nanoseconds(Int64(clamping: nanoseconds - other.nanoseconds))
        }
    }
}

