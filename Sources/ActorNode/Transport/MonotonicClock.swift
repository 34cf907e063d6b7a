import Glibc

/// The event loop's clock: nanoseconds of the system's monotonic clock, read with one call and
/// kept as one 64-bit number. The loop reads it two or three times a turn (the due timers, the
/// wait until the next); `ContinuousClock` keeps its instants as 128-bit attoseconds, and
/// turning one into the milliseconds `epoll_wait` takes cost about 500 instructions a turn
/// (callgrind).
enum MonotonicClock {
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
