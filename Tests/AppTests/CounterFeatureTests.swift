import ActorNode
import ActorNodeTesting
import Testing
@testable import CoreDaemon
import TodoContract
import Wire

@Suite("Counter feature")
struct CounterFeatureTests {
    private func makeStore(seed: UInt64 = 42) -> TestStore<AppState, AppAction, AppEnvironment> {
        TestStore(state: AppState(), reducer: AppReducer.reducer, environment: AppEnvironment(time: TestTime(), random: .seeded(seed)))
    }

    @Test("increment, decrement, reset and set")
    func basics() async {
        let store = makeStore()
        await store.send(.counter(.increment)) { $0.counter.value = 1 }
        await store.send(.counter(.increment)) { $0.counter.value = 2 }
        await store.send(.counter(.decrement)) { $0.counter.value = 1 }
        await store.send(.counter(.set(value: -40))) { $0.counter.value = -40 }
        await store.send(.counter(.reset)) { $0.counter.value = 0 }
        await store.finish()
    }

    @Test("randomize changes nothing itself; a random 0...10 arrives through an effect as set")
    func randomize() async {
        let expected = RandomSource.seeded(42).int(in: 0 ... 10)
        let store = makeStore(seed: 42)
        await store.send(.counter(.randomize))
        await store.receive(.counter(.set(value: expected))) { $0.counter.value = expected }
        await store.finish()
    }

    @Test("the counter refuses to overflow")
    func overflow() async {
        let store = TestStore(
            state: AppState(counter: CounterState(value: .max)), reducer: AppReducer.reducer,
            environment: AppEnvironment(time: TestTime()))
        await store.send(.counter(.increment), rejectedWith: "overflow")
        await store.finish()
    }
}
