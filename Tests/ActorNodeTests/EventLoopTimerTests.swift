import ActorNode
import Testing

/// The event loop's timers: they fire, in order; a cancelled one is gone at once; a sleep that
/// is due at once, or cancelled, returns.
@Suite("Event loop timers")
struct EventLoopTimerTests {
    @Test("sleeps that are due at once all return, however they race the loop's thread", .timeLimit(.minutes(1)))
    func dueAtOnce() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0 ..< 2000 {
                group.addTask { await EventLoop.shared.sleep(for: index % 2 == 0 ? .zero : .nanoseconds(1)) }
            }
        }
    }

    @Test("a cancelled sleep returns at once and leaves no timer behind", .timeLimit(.minutes(1)))
    func cancelled() async throws {
        let loop = EventLoop()
        let sleepers = (0 ..< 500).map { _ in Task { await loop.sleep(for: .seconds(600)) } }
        let deadline = ContinuousClock.now + .seconds(30)
        while loop.scheduledCount < 500, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(loop.scheduledCount == 500)
        for sleeper in sleepers { sleeper.cancel() }
        for sleeper in sleepers { await sleeper.value }
        #expect(loop.scheduledCount == 0)
    }

    @Test("timers fire in the order of their deadlines; a cancelled one never does", .timeLimit(.minutes(1)))
    func order() async {
        let fired = Chan<Int>()
        let loop = EventLoop()
        loop.schedule(after: .milliseconds(60)) { fired.trySend(3) }
        let cancelled = loop.schedule(after: .milliseconds(40)) { fired.trySend(99) }
        loop.schedule(after: .milliseconds(20)) { fired.trySend(1) }
        loop.schedule(after: .milliseconds(50)) { fired.trySend(2) }
        #expect(loop.cancel(cancelled))
        #expect(await fired.receive() == 1)
        #expect(await fired.receive() == 2)
        #expect(await fired.receive() == 3)
        #expect(!loop.cancel(cancelled))
    }
}
