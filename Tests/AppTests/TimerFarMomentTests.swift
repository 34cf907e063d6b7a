import ActorNodeTesting
import FoundationEssentials
import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

/// The seconds left of a focus are a difference of two moments, converted to an Int: a deadline
/// or a tick's moment more than Int.max seconds from the other (a snapshot's damaged deadline, a
/// clock set wildly wrong) gives Int.max or 0 seconds, and not a conversion that kills the core.
@Suite("Focus timer: moments far apart")
struct TimerFarMomentTests {
    @Test("seconds left are clamped to 0...Int.max", arguments: [
        (1e300, 0.0, Int.max), (0.0, 1e300, 0), (0x1p63, 0.0, Int.max), (0x1p63 - 1024, 0.0, Int(0x1p63 - 1024)),
        (Double.infinity, 0.0, Int.max), (0.0, Double.infinity, 0), (Double.nan, 0.0, 0), (10.0, -.greatestFiniteMagnitude, Int.max),
        (10.5, 0.0, 11), (10.0, 10.0, 0),
    ])
    func secondsLeft(deadline: Double, moment: Double, expected: Int) {
        #expect(TimerReducer.secondsLeft(until: deadline, at: moment) == expected)
    }

    private func focus(deadline: Double) -> AppState {
        AppState(todo: TodoState(items: [TodoItem(id: 1, text: "a")], nextId: 2), timer: TimerState(item: 1, running: true, remaining: 5, deadline: deadline))
    }

    @Test("a tick far before a deadline centuries away leaves the focus running with Int.max seconds")
    func farTick() throws {
        var state = focus(deadline: 1e300)
        _ = try AppReducer.reducer(&state, .timer(.tick(at: -1e300)), AppEnvironment(now: Date(timeIntervalSince1970: 1_767_225_600)))
        #expect(state.timer == TimerState(item: 1, running: true, remaining: .max, deadline: 1e300))
    }

    @Test("the next tick of a deadline centuries away waits; it does not trap counting milliseconds")
    func farDeadlineTicking() async {
        let time = TestTime()
        let store = TestStore(state: focus(deadline: 1e300), reducer: AppReducer.reducer, environment: AppEnvironment(time: time), time: time)
        await store.send(.timer(.tick(at: time.now.timeIntervalSince1970))) { $0.timer.remaining = .max }
        while time.sleeperCount < 1 { await Task.yield() }
        await time.advance(by: .seconds(3_600))
        #expect(store.activeEffectCount == 1)
        store.cancelEffects()
        await store.finish()
    }
}
