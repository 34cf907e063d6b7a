import Synchronization
import Testing
@testable import ActorNode
import Wire

@Suite("Store")
struct StoreTests {
    final class Events: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ event: String) { list.withLock { $0.append(event) } }
        var all: [String] { list.withLock { $0 } }
    }

    private func makeStore(_ events: Events, time: TestTime = TestTime()) -> Store<Int, Probe, ProbeEnvironment> {
        Store(state: 0, reducer: probeReducer, environment: ProbeEnvironment(time: time), time: time, observe: { event in
            switch event {
            case let .applied(transition):
                events.append("r\(transition.revision) \(transition.origin) \(transition.action) -> \(transition.state)")
            case let .rejected(action, origin, rejection):
                events.append("rejected \(origin) \(action): \(rejection.code)")
            }
        })
    }

    @Test("every applied action gets the next revision, its effects' actions included, in order")
    func revisions() async {
        let events = Events()
        let store = makeStore(events)
        guard case let .applied(revision, handle) = await store.send(.sendTwo) else {
            Issue.record("rejected")
            return
        }
        #expect(revision == 1)
        await handle.wait()
        #expect(events.all == ["r1 outside sendTwo -> 0", "r2 effect got(1) -> 1", "r3 effect got(2) -> 3"])
        #expect(await store.current.revision == 3)
    }

    @Test("actions from asynchronous effects are applied as they arrive")
    func asynchronousEffects() async {
        let events = Events()
        let time = TestTime()
        let store = makeStore(events, time: time)
        await store.send(.longSequence(id: "t"))
        await time.advance(by: .seconds(1))
        await time.advance(by: .seconds(1))
        for _ in 0 ..< 200 where await store.current.state < 3 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(await store.current.state == 3)
        await store.send(.cancel(id: "t"))
        #expect(events.all.contains("r2 effect got(1) -> 1"))
        await store.cancelAllEffects()
    }

    @Test("read runs inside the store, with the revision and the state together")
    func read() async {
        let store = makeStore(Events())
        await store.send(.got(5))
        let seen = await store.read { revision, state in "\(revision):\(state)" }
        #expect(seen == "1:5")
    }
}
