import Testing
@testable import ActorNode
@testable import ActorNodeTesting

/// The test helper must fail when a test is wrong: these tests expect its issues.
@Suite("TestStore")
struct TestStoreTests {
    private func makeStore(time: TestTime = TestTime()) -> TestStore<Int, Probe, ProbeEnvironment> {
        TestStore(state: 0, reducer: probeReducer, environment: ProbeEnvironment(time: time), time: time, timeout: .milliseconds(200))
    }

    @Test("an unexpected state change fails with a readable difference")
    func unexpectedChange() async {
        let store = makeStore()
        await withKnownIssue {
            await store.send(.got(2)) { $0 = 3 }
        } matching: { issue in
            issue.description.contains("(the whole state): expected 3, got 2")
        }
    }

    @Test("a change the test did not describe fails")
    func undescribedChange() async {
        let store = makeStore()
        await withKnownIssue {
            await store.send(.got(2))
        }
    }

    @Test("an action left unreceived fails at the end")
    func unreceivedAction() async {
        let store = makeStore()
        await store.send(.runReturning(1)).wait()
        await withKnownIssue {
            await store.finish()
        } matching: { $0.description.contains("did not receive") }
    }

    @Test("an effect still running at the end fails, naming its id")
    func effectStillRunning() async {
        let store = makeStore()
        await store.send(.longSequence(id: "forever"))
        await withKnownIssue {
            await store.finish()
        } matching: { $0.description.contains("ids: forever") }
    }

    @Test("receiving the wrong action fails")
    func wrongAction() async {
        let store = makeStore()
        await store.send(.runReturning(1))
        await withKnownIssue {
            await store.receive(.got(2))
        } matching: { $0.description.contains("but the test expected") }
    }

    @Test("waiting for an action no effect sends fails after the timeout")
    func nothingToReceive() async {
        let store = makeStore()
        await withKnownIssue {
            await store.receive(.got(1))
        } matching: { $0.description.contains("no effect sent an action") }
    }
}
