import FoundationEssentials
import Synchronization
import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

/// An item's pomodoros stop at Int32.max: a focus that completes on an item that has them all
/// still ends (the timer idle, the notice sent), instead of overflowing the count and killing
/// the core in the middle of a tick.
@Suite("Pomodoro counts")
struct PomodoroCountTests {
    final class Notices: Sendable {
        private let texts = Mutex<[String]>([])
        func post(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    @Test("a completed focus on an item with Int32.max pomodoros leaves the count at Int32.max")
    func saturates() async throws {
        let notices = Notices()
        var state = AppState(
            todo: TodoState(items: [TodoItem(id: 1, text: "a", pomodoros: .max)], nextId: 2),
            timer: TimerState(item: 1, running: true, remaining: 1, deadline: 100))
        let effect = try AppReducer.reducer(&state, .timer(.tick(at: 100)), AppEnvironment(notify: { notices.post($0) }))
        #expect(state.todo.items[0].pomodoros == .max)
        #expect(state.timer == .idle)
        for case let .work(work) in effect.steps { try await work.body(EffectSend { _ in }) }
        #expect(notices.all == ["focus on 1 'a' is complete (2147483647 pomodoros)"])
    }
}
