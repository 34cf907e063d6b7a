import ActorNode
import ActorNodeTesting
import FoundationEssentials
import Synchronization
import Testing
@testable import CoreDaemon
import TodoContract
import Wire

@Suite("Focus timer feature")
struct TimerFeatureTests {
    final class Notices: Sendable {
        private let texts = Mutex<[String]>([])
        func post(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    let time = TestTime()
    let notices = Notices()

    private var start: Double { time.now.timeIntervalSince1970 }

    private var twoItems: AppState {
        AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk"), TodoItem(id: 2, text: "call mom")], nextId: 3))
    }

    private func makeStore(_ state: AppState? = nil, seed: UInt64 = 1) -> TestStore<AppState, AppAction, AppEnvironment> {
        let notices = self.notices
        return TestStore(
            state: state ?? twoItems, reducer: AppReducer.reducer,
            environment: AppEnvironment(time: time, random: .seeded(seed), notify: { notices.post($0) }),
            time: time)
    }

    private func tick(_ store: TestStore<AppState, AppAction, AppEnvironment>, at moment: Double, _ update: @escaping (inout AppState) -> Void) async {
        await time.advance(by: .seconds(1))
        await store.receive(.timer(.tick(at: moment)), update)
    }

    @Test("a focus ticks once a second; at zero the item gets a pomodoro and every shell a notice")
    func completes() async {
        let store = makeStore()
        let t0 = start
        await store.send(.timer(.start(id: 1, seconds: 3))) {
            $0.timer = TimerState(item: 1, running: true, remaining: 3, deadline: t0 + 3)
        }
        await tick(store, at: t0 + 1) { $0.timer.remaining = 2 }
        await tick(store, at: t0 + 2) { $0.timer.remaining = 1 }
        await tick(store, at: t0 + 3) {
            $0.timer = .idle
            $0.todo.items[0].pomodoros = 1
        }
        await store.finish()
        #expect(notices.all == ["focus on 1 'buy milk' is complete (1 pomodoro)"])
    }

    @Test("a focus lasts 25 minutes unless told otherwise")
    func defaultLength() async {
        let store = makeStore()
        let t0 = start
        await store.send(.timer(.start(id: 2, seconds: nil))) {
            $0.timer = TimerState(item: 2, running: true, remaining: 1500, deadline: t0 + 1500)
        }
        await store.send(.timer(.stop)) { $0.timer = .idle }
        await store.finish()
    }

    @Test("a new start replaces the running focus: only its ticks arrive")
    func replaces() async {
        let store = makeStore()
        let t0 = start
        await store.send(.timer(.start(id: 1, seconds: 10))) {
            $0.timer = TimerState(item: 1, running: true, remaining: 10, deadline: t0 + 10)
        }
        await store.send(.timer(.start(id: 2, seconds: 2))) {
            $0.timer = TimerState(item: 2, running: true, remaining: 2, deadline: t0 + 2)
        }
        #expect(store.activeEffectCount == 1)
        await tick(store, at: t0 + 1) { $0.timer.remaining = 1 }
        await tick(store, at: t0 + 2) {
            $0.timer = .idle
            $0.todo.items[1].pomodoros = 1
        }
        await store.finish()
        #expect(notices.all == ["focus on 2 'call mom' is complete (1 pomodoro)"])
    }

    @Test("stop cancels the ticking; nothing more arrives")
    func stops() async {
        let store = makeStore()
        let t0 = start
        await store.send(.timer(.start(id: 1, seconds: 5))) {
            $0.timer = TimerState(item: 1, running: true, remaining: 5, deadline: t0 + 5)
        }
        await tick(store, at: t0 + 1) { $0.timer.remaining = 4 }
        await store.send(.timer(.stop)) { $0.timer = .idle }
        await time.advance(by: .seconds(10))
        await store.finish()
        #expect(notices.all.isEmpty)
    }

    @Test("pick starts focus on a random item that is not done, through an effect")
    func picks() async {
        var state = twoItems
        state.todo.items.append(TodoItem(id: 3, text: "water plants"))
        state.todo.items[0].done = true
        let candidates = [2, 3]
        let expected = RandomSource.seeded(9).element(of: candidates)!
        let store = makeStore(state, seed: 9)
        let t0 = start
        await store.send(.timer(.pick))
        await store.receive(.timer(.start(id: expected, seconds: nil))) {
            $0.timer = TimerState(item: expected, running: true, remaining: 1500, deadline: t0 + 1500)
        }
        await store.send(.timer(.stop)) { $0.timer = .idle }
        await store.finish()
    }

    @Test("pick moves on: it avoids the item already in focus when there is another")
    func pickMovesOn() async {
        let store = makeStore(seed: 5)
        let t0 = start
        await store.send(.timer(.start(id: 1, seconds: 60))) {
            $0.timer = TimerState(item: 1, running: true, remaining: 60, deadline: t0 + 60)
        }
        await store.send(.timer(.pick))
        await store.receive(.timer(.start(id: 2, seconds: nil))) {
            $0.timer = TimerState(item: 2, running: true, remaining: 1500, deadline: t0 + 1500)
        }
        await store.send(.timer(.stop)) { $0.timer = .idle }
        await store.finish()
    }

    @Test("nothing to pick, unknown items and odd lengths are rejected")
    func rejections() async {
        var allDone = twoItems
        allDone.todo.items[0].done = true
        allDone.todo.items[1].done = true
        let store = makeStore(allDone)
        await store.send(.timer(.pick), rejectedWith: "nothing_to_pick")
        await store.send(.timer(.start(id: 9, seconds: 10)), rejectedWith: "unknown_item")
        await store.send(.timer(.start(id: 1, seconds: 0)), rejectedWith: "bad_duration")
        await store.send(.timer(.start(id: 1, seconds: 86_401)), rejectedWith: "bad_duration")
        await store.finish()
    }

    @Test("removing the item in focus ends the focus")
    func removingTheItemStops() async {
        let store = makeStore()
        let t0 = start
        await store.send(.timer(.start(id: 2, seconds: 60))) {
            $0.timer = TimerState(item: 2, running: true, remaining: 60, deadline: t0 + 60)
        }
        await store.send(.todo(.remove(id: 1))) { $0.todo.items.removeFirst() }
        #expect(store.activeEffectCount == 1, "removing another item leaves the focus alone")
        await store.send(.todo(.remove(id: 2))) {
            $0.todo.items = []
            $0.timer = .idle
        }
        await store.finish()
    }

    @Test("a tick fired late (its core was down at its moment) counts from when it is applied, and the ticking goes on from there")
    func lateTick() async {
        let t0 = start
        var loaded = twoItems
        loaded.timer = TimerState(item: 1, running: true, remaining: 7, deadline: t0 + 2.5)
        let store = makeStore(loaded)
        await store.send(.timer(.tick(at: t0 - 10))) { $0.timer.remaining = 3 }
        await time.advance(by: .milliseconds(500))
        await store.receive(.timer(.tick(at: t0 + 0.5))) { $0.timer.remaining = 2 }
        await tick(store, at: t0 + 1.5) { $0.timer.remaining = 1 }
        await tick(store, at: t0 + 2.5) {
            $0.timer = .idle
            $0.todo.items[0].pomodoros = 1
        }
        await store.finish()
    }

    @Test("a tick fired after the deadline passed (while the core was down) completes the focus at once")
    func tickAfterDeadline() async {
        let t0 = start
        var loaded = twoItems
        loaded.timer = TimerState(item: 2, running: true, remaining: 30, deadline: t0 - 60)
        let store = makeStore(loaded)
        await store.send(.timer(.tick(at: t0 - 90))) {
            $0.timer = .idle
            $0.todo.items[1].pomodoros = 1
        }
        await store.finish()
        #expect(notices.all == ["focus on 2 'call mom' is complete (1 pomodoro)"])
    }

    @Test("the core refuses the timer's ticks from clients; an older journal's resume reads as a tick")
    func internalActions() throws {
        #expect(AppReducer.admits(.timer(.tick(at: 0)))?.code == "internal_action")
        #expect(AppReducer.admits(.timer(.pick)) == nil)
        #expect(try WireJSON.decode(TimerAction.self, from: Array(#""resume""#.utf8)) == .tick(at: 0))
    }
}
