@testable import ActorNode
import Testing

/// The event loop's clock: deadlines as nanoseconds, and the milliseconds `epoll_wait` is
/// given for one (rounded up, so that the loop never wakes just before a timer is due).
@Suite("The event loop's monotonic clock")
struct MonotonicClockTests {
    @Test("no deadline waits for ever, a passed one not at all, a far one as long as epoll takes")
    func limits() {
        #expect(MonotonicClock.milliseconds(until: nil) == -1)
        #expect(MonotonicClock.milliseconds(until: 0) == 0)
        #expect(MonotonicClock.milliseconds(until: MonotonicClock.now) == 0)
        #expect(MonotonicClock.milliseconds(until: .max) == Int32.max)
    }

    @Test("a wait is rounded up to the next millisecond, never down")
    func roundsUp() {
        let now: UInt64 = 5_000_000_000
        #expect(MonotonicClock.milliseconds(until: now + 1, from: now) == 1)
        #expect(MonotonicClock.milliseconds(until: now + 1_500_000, from: now) == 2)
        #expect(MonotonicClock.milliseconds(until: now + 10_000_000, from: now) == 10)
        #expect(MonotonicClock.milliseconds(until: now + 10_000_001, from: now) == 11)
        #expect(MonotonicClock.milliseconds(until: now, from: now) == 0)
        #expect(MonotonicClock.milliseconds(until: now - 1, from: now) == 0)
        #expect(MonotonicClock.milliseconds(until: now + (UInt64(Int32.max) + 5) * 1_000_000, from: now) == Int32.max)
    }

    @Test("a deadline is now plus the delay; a negative delay is now; one beyond 2^64 ns is the end of time")
    func deadlines() {
        let before = MonotonicClock.now
        let deadline = MonotonicClock.deadline(after: .milliseconds(250))
        let after = MonotonicClock.now
        #expect(deadline >= before + 250_000_000 && deadline <= after + 250_000_000)
        let negative = MonotonicClock.deadline(after: .seconds(-5))
        #expect(negative >= after && negative <= MonotonicClock.now)
        #expect(MonotonicClock.deadline(after: .seconds(Int64.max)) == .max)
        #expect(MonotonicClock.deadline(after: .seconds(20_000_000_000)) == .max)
    }

    @Test("a duration in nanoseconds: none for a negative one, all of them for one too long to count")
    func nanoseconds() {
        #expect(MonotonicClock.nanoseconds(in: .milliseconds(100)) == 100_000_000)
        #expect(MonotonicClock.nanoseconds(in: .seconds(1.5)) == 1_500_000_000)
        #expect(MonotonicClock.nanoseconds(in: .nanoseconds(7)) == 7)
        #expect(MonotonicClock.nanoseconds(in: .zero) == 0)
        #expect(MonotonicClock.nanoseconds(in: .seconds(-3)) == 0)
        #expect(MonotonicClock.nanoseconds(in: .seconds(20_000_000_000)) == .max)
        #expect(FsyncPolicy.batchIntervalNanoseconds == 100_000_000)
    }

    @Test("an instant moves by durations either way, within the clock's start and end, and tells how far another is")
    func instants() {
        let start = MonotonicClock.Instant(nanoseconds: 5_000_000_000)
        #expect((start + .milliseconds(1500)).nanoseconds == 6_500_000_000)
        #expect((start + .seconds(-2)).nanoseconds == 3_000_000_000)
        #expect((start - .seconds(2)).nanoseconds == 3_000_000_000)
        #expect((start - .seconds(60)).nanoseconds == 0)
        #expect((start + .seconds(20_000_000_000)).nanoseconds == .max)
        var moved = start
        moved += .nanoseconds(7)
        #expect(moved.nanoseconds == 5_000_000_007)
        #expect(start.duration(to: moved) == .nanoseconds(7))
        #expect(moved.duration(to: start) == .nanoseconds(-7))
        #expect(moved - start == .nanoseconds(7))
        #expect(start < moved && !(moved < start))
        let now = MonotonicClock.Instant.now
        #expect(now <= MonotonicClock.Instant.now)
        #expect(PollTimeout.milliseconds(until: nil) == -1)
        #expect(PollTimeout.milliseconds(until: now - .seconds(1)) == 0)
        let wait = PollTimeout.milliseconds(until: MonotonicClock.Instant.now + .milliseconds(1500))
        #expect(wait > 1400 && wait <= 1500)
    }
}

