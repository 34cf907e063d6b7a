import ActorNode
import Synchronization
import Testing
@testable import CoreDaemon
import TodoContract
import Wire

/// Principle 3: replaying what was applied gives the same state and never re-runs an effect.
@Suite("Replaying applied actions")
struct ReplayTests {
    final class Recorder: Sendable {
        private let actions = Mutex<[AppAction]>([])
        private let notices = Mutex<[String]>([])
        func record(_ action: AppAction) { actions.withLock { $0.append(action) } }
        func notice(_ text: String) { notices.withLock { $0.append(text) } }
        var applied: [AppAction] { actions.withLock { $0 } }
        var noticeCount: Int { notices.withLock { $0.count } }
    }

    @Test("the applied actions, effects' actions included, replay to the same state with no effect run")
    func replayMatchesLiveRun() async throws {
        let recorder = Recorder()
        let time = TestTime()
        let live = AppEnvironment(time: time, random: .seeded(3), notify: { recorder.notice($0) })
        let store = Store(
            state: AppState(), reducer: AppReducer.reducer, environment: live, time: time,
            observe: { event in
                if case let .applied(transition) = event { recorder.record(transition.action) }
            })
        for action: AppAction in [.todo(.add(text: "a")), .todo(.add(text: "b")), .counter(.randomize), .todo(.toggle(id: 1))] {
            guard case let .applied(_, effects) = await store.send(action) else {
                Issue.record("\(action) was rejected")
                return
            }
            await effects.wait()
        }
        _ = await store.send(.timer(.start(id: 2, seconds: 2)))
        await time.advance(by: .seconds(1))
        await time.advance(by: .seconds(1))
        for _ in 0 ..< 500 where recorder.noticeCount == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let final = await store.current
        #expect(recorder.noticeCount == 1)
        #expect(recorder.applied.count == Int(final.revision))
        #expect(recorder.applied.contains { if case .counter(.set) = $0 { true } else { false } }, "the random value was applied as a set action")

        // Replay with an environment whose effects would be noticed: a different random seed and
        // a notice counter. Reducers read "now" from the environment; the journal records it per
        // action (see the durability tests); here every action was applied at one test moment.
        let replayNotices = Recorder()
        let replayEnvironment = AppEnvironment(
            time: TestTime(), now: time.now.addingTimeInterval(-2), random: .seeded(999),
            notify: { replayNotices.notice($0) })
        var replayed = AppState()
        try AppReducer.reducer.replay(recorder.applied, on: &replayed, environment: replayEnvironment)
        #expect(replayed == final.state)
        #expect(replayNotices.noticeCount == 0, "replay must not run effects")
    }
}
