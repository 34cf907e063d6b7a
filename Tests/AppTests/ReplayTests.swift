import ActorNodeTesting
import Synchronization
import Testing
@testable import ActorNode
@testable import CoreDaemon
import TodoContract
import Wire

/// Principle 3: replaying what was applied gives the same state and never re-runs an effect.
@Suite("Replaying applied actions")
struct ReplayTests {
    final class Notices: Sendable {
        private let count = Mutex(0)
        func notice(_ text: String) { count.withLock { $0 += 1 } }
        var total: Int { count.withLock { $0 } }
    }

    private func waitFor(_ what: String, _ condition: () async -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(20)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test("the journal of a live run, effects' actions included, replays to the same state with no effect run")
    func replayMatchesLiveRun() async throws {
        let notices = Notices()
        let time = TestTime()
        let live = AppEnvironment(time: time, random: .seeded(3), notify: { notices.notice($0) })
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        let journal = try JournalWriter<AppState>(files: files, policy: .never, nextRevision: 1, snapshotThreshold: 1 << 20) { _ in }
        let core = CoreEngine(state: AppState(), journal: journal, reducer: AppReducer.reducer, environment: live, time: time)
        for action: AppAction in [.todo(.add(text: "a")), .todo(.add(text: "b")), .counter(.randomize), .todo(.toggle(id: 1))] {
            await core.send(action)
        }
        // The random value comes back from an effect as an action of its own.
        await waitFor("the random value") { await core.current.revision == 5 }
        await core.send(.timer(.start(id: 2, seconds: 2)))
        // Each second, once the timer's effect sleeps: it wakes and ticks (the second tick ends
        // the focus, with a notice).
        for second in 1 ... 2 {
            await waitFor("the timer to sleep before second \(second)") { time.sleeperCount == 1 }
            let before = await core.current.revision
            await time.advance(by: .seconds(1))
            await waitFor("the tick of second \(second)") { await core.current.revision > before }
        }
        await waitFor("the focus's notice") { notices.total == 1 }
        #expect(notices.total == 1)
        let final = await core.current
        await core.stop(reason: "test")
        await core.closeJournal()

        let recovered = try Recovery.load(files, state: AppState.self, action: AppAction.self)
        #expect(recovered.entries.map(\.revision) == Array(1 ... final.revision))
        #expect(recovered.entries.contains { if case .counter(.set) = $0.action { true } else { false } }, "the random value was applied as a set action")

        // Replayed with an environment whose effects would be noticed: a different random seed
        // and a notice counter. Each entry is replayed at the moment it was first applied.
        let replayNotices = Notices()
        let replayEnvironment = AppEnvironment(time: TestTime(), random: .seeded(999), notify: { replayNotices.notice($0) })
        let replayed = try recovered.replay(initial: AppState(), reducer: AppReducer.reducer, environment: replayEnvironment)
        #expect(replayed.state == final.state)
        #expect(replayed.revision == final.revision)
        #expect(replayNotices.total == 0, "replay must not run effects")
    }
}
