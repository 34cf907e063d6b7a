import FoundationEssentials
import Synchronization
import Testing
@testable import ActorNode
@testable import Wire

@Suite("Time sources")
struct TimeSourceTests {
    @Test("test time stands still until advanced, then wakes sleepers in order")
    func advancing() async throws {
        let time = TestTime()
        let start = time.now
        let woken = Log()
        let sleepers = (1 ... 3).reversed().map { seconds in
            Task {
                try await time.sleep(for: .seconds(seconds))
                woken.append("\(seconds)")
            }
        }
        while time.sleeperCount < 3 { await Task.yield() }
        #expect(time.now == start)
        await time.advance(by: .seconds(2))
        #expect(woken.all == ["1", "2"])
        #expect(time.now == start.addingTimeInterval(2))
        await time.advance(by: .seconds(5))
        #expect(woken.all == ["1", "2", "3"])
        for sleeper in sleepers { try await sleeper.value }
    }

    @Test("a cancelled sleeper throws and is forgotten")
    func cancellation() async {
        let time = TestTime()
        let sleeper = Task { try await time.sleep(for: .seconds(10)) }
        while time.sleeperCount < 1 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(time.sleeperCount == 0)
    }

    @Test("sleep(until:) a moment that has passed returns at once")
    func sleepUntilPast() async throws {
        let time = TestTime()
        try await time.sleep(until: time.now.addingTimeInterval(-5))
    }

    @Test("sleep(until:) a moment centuries away sleeps a year at a time, without overflowing its milliseconds")
    func sleepUntilFarFuture() async {
        let time = TestTime()
        let start = time.now
        let sleeper = Task { try await time.sleep(until: Date(timeIntervalSince1970: 1e300)) }
        while time.sleeperCount < 1 { await Task.yield() }
        await time.advance(by: .seconds(2 * 365 * 86_400))
        #expect(time.now == start.addingTimeInterval(2 * 365 * 86_400))
        #expect(time.sleeperCount == 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("seeded random numbers repeat; the range is respected")
    func seededRandom() {
        let first = RandomSource.seeded(7)
        let second = RandomSource.seeded(7)
        let a = (0 ..< 20).map { _ in first.int(in: 0 ... 10) }
        let b = (0 ..< 20).map { _ in second.int(in: 0 ... 10) }
        #expect(a == b)
        #expect(a.allSatisfy { (0 ... 10).contains($0) })
        #expect(Set(a).count > 3)
        #expect(RandomSource.seeded(1).element(of: [Int]()) == nil)
    }

    @Test("system time is the wall clock in whole microseconds, which the journal writes fast")
    func systemTimeInMicroseconds() {
        for _ in 0 ..< 1000 {
            let before = Date().timeIntervalSince1970
            let now = SystemTime().now.timeIntervalSince1970
            let after = Date().timeIntervalSince1970
            // (Date's own conversions are off by up to a few tenths of a microsecond.)
            #expect(now >= before - 0.000_002 && now <= after + 0.000_001, "\(before) \(now) \(after)")
            #expect(JSONByteWriter.wholeMicroseconds(now) != nil, "\(now)")
        }
    }
}
