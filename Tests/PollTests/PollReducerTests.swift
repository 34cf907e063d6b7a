import ActorNode
import ActorNodeTesting
import FoundationEssentials
import Testing
@testable import PollContract
@testable import PollCore
import Wire

/// The poll's logic, under TestStore: every change expected (and every change's patch checked
/// against the state's JSON, the optional winner's `add` among them), every effect accounted for.
@Suite("Poll reducer")
struct PollReducerTests {
    private func makeStore(_ state: PollState = PollState(), time: TestTime = TestTime()) -> TestStore<PollState, PollAction, CoreServices> {
        TestStore(state: state, reducer: PollCore.reducer, environment: CoreServices(time: time), time: time)
    }

    @Test("options, votes, and a close that names the first option with the most votes")
    func closeNamesTheWinner() async {
        let store = makeStore()
        await store.send(.propose(text: "pizza")) { $0.options = [PollOption(id: 1, text: "pizza")] }
        await store.send(.propose(text: "sushi")) { $0.options.append(PollOption(id: 2, text: "sushi")) }
        await store.send(.propose(text: "tacos")) { $0.options.append(PollOption(id: 3, text: "tacos")) }
        await store.send(.vote(number: 2)) { $0.options[1].votes = 1 }
        await store.send(.vote(number: 3)) { $0.options[2].votes = 1 }
        await store.send(.close()) {
            $0.closed = true
            $0.winner = 2
        }
        await store.send(.vote(number: 1), rejectedWith: "closed")
        await store.finish()
    }

    @Test("close --in: the poll closes by itself at the deadline, which the state keeps")
    func closesAtTheDeadline() async {
        let time = TestTime()
        let store = makeStore(time: time)
        await store.send(.propose(text: "pizza")) { $0.options = [PollOption(id: 1, text: "pizza")] }
        await store.send(.close(in: 30)) { $0.closesAt = time.now.timeIntervalSince1970 + 30 }
        await time.advance(by: .seconds(29))
        await store.send(.vote(number: 1)) { $0.options[0].votes = 1 }
        await time.advance(by: .seconds(1))
        await store.receive(.close()) {
            $0.closed = true
            $0.closesAt = nil
            $0.winner = 1
        }
        await store.finish()
    }

    @Test("close --in is a durable timer: the store keeps it, a replay of the journal finds it again, its firing or a close now ends it")
    func durableDeadline() throws {
        let time = TestTime()
        let kernel = StoreKernel(state: PollState(), reducer: PollCore.reducer, environment: CoreServices(time: time), time: time)
        var entries: [JournalEntry<PollAction>] = []
        func apply(_ action: PollAction, from origin: ActionOrigin = .outside(nil)) throws {
            guard case let .applied(revision) = kernel.apply(action, from: origin) else { throw Rejection(code: "x", message: "\(action) was not applied") }
            var timer: String?
            if case let .timer(id, _) = origin { timer = id.name }
            entries.append(JournalEntry(revision: revision, at: kernel.moment.timeIntervalSince1970, client: nil, seq: nil, timer: timer, action: action))
        }
        func replayed() throws -> DurableTimers<PollAction> {
            let log = RecoveredLog<PollState, PollAction>(snapshot: nil, entries: entries)
            return try log.replay(initial: PollState(), reducer: PollCore.reducer, environment: CoreServices(time: time)).timers
        }
        try apply(.propose(text: "pizza"))
        try apply(.close(in: 30))
        let deadline = time.now.addingTimeInterval(30)
        #expect(kernel.timers.isScheduled("close", deadline: deadline))
        #expect(try replayed().isScheduled("close", deadline: deadline))
        // Its firing ends it, live and in a replay: a core that starts again does not fire it twice.
        try apply(.close(), from: .timer("close", deadline: deadline))
        #expect(kernel.timers.isEmpty)
        #expect(try replayed().isEmpty)
    }

    @Test("a snapshot keeps the durable timers, and a store recovered from it has them")
    func snapshotKeepsTimers() throws {
        let time = TestTime()
        let kernel = StoreKernel(state: PollState(), reducer: PollCore.reducer, environment: CoreServices(time: time), time: time)
        _ = kernel.apply(.close(in: 60), from: .outside(nil))
        let kept = try #require(try kernel.timers.snapshotTimers())
        #expect(kept == [SnapshotTimer(id: "close", at: time.now.timeIntervalSince1970 + 60, action: try JSONValue(encoding: PollAction.close()))])
        let restored = try DurableTimers<PollAction>(snapshot: kept)
        #expect(restored.isScheduled("close", deadline: time.now.addingTimeInterval(60)))
    }

    @Test("a later close replaces the deadline; closing now calls it off")
    func deadlinesReplaced() async {
        let time = TestTime()
        let store = makeStore(time: time)
        let start = time.now.timeIntervalSince1970
        await store.send(.close(in: 10)) { $0.closesAt = start + 10 }
        await store.send(.close(in: 60)) { $0.closesAt = start + 60 }
        await time.advance(by: .seconds(30))
        await store.send(.close()) {
            $0.closed = true
            $0.closesAt = nil
        }
        await time.advance(by: .seconds(60))
        await store.finish()
    }

    @Test("what the poll refuses")
    func refusals() async throws {
        let store = makeStore()
        await store.send(.propose(text: ""), rejectedWith: "bad_text")
        await store.send(.propose(text: String(repeating: "x", count: 201)), rejectedWith: "bad_text")
        await store.send(.vote(number: 1), rejectedWith: "unknown_option")
        await store.send(.vote(number: .min), rejectedWith: "unknown_option")
        await store.send(.close(in: 0), rejectedWith: "bad_delay")
        await store.send(.close(in: 86_401), rejectedWith: "bad_delay")
        // JSON as clients write it.
        #expect(try WireJSON.decode(PollAction.self, from: Array(#"{"close":{}}"#.utf8)) == .close())
        #expect(try WireJSON.decode(PollAction.self, from: Array(#"{"close":{"in":30}}"#.utf8)) == .close(in: 30))
        await store.finish()
    }
}
