import FoundationEssentials
import Synchronization
import Testing
@testable import ActorNode
@testable import ActorNodeTesting
import Wire

/// A tiny app for exercising effects: each action names the effect its reducer returns.
enum Probe: Equatable, Codable, Sendable {
    case none
    case sendTwo
    case fireAndForget
    case runReturning(Int?)
    case sequence
    case longSequence(id: String)
    case cancel(id: String)
    case combined
    case child(ChildProbe)
    case got(Int)
}

enum ChildProbe: Equatable, Codable, Sendable {
    case ping
    case pong
}

struct ProbeEnvironment: Sendable {
    var time: any TimeSource
    let log = Log()
}

/// Things effects did, in order.
final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

let childReducer = Reducer<Int, ChildProbe, Void> { _, action, _ throws(Rejection) in
    switch action {
    case .ping: return .send(.pong)
    case .pong: return .none
    }
}

let probeReducer = Reducer<Int, Probe, ProbeEnvironment>.combine(
    Reducer { state, action, environment throws(Rejection) in
        switch action {
        case .none:
            return .none
        case .sendTwo:
            return .send(.got(1), .got(2))
        case .fireAndForget:
            return .fireAndForget { environment.log.append("fired") }
        case let .runReturning(value):
            return .run { value.map(Probe.got) }
        case .sequence:
            return .sequence { AsyncStream { continuation in
                for number in 1 ... 3 { continuation.yield(Probe.got(number)) }
                continuation.finish()
            } }
        case let .longSequence(id):
            return .task(id: EffectID(id)) { send in
                var number = 0
                while true {
                    try await environment.time.sleep(for: .seconds(1))
                    number += 1
                    await send(.got(number))
                }
            }
        case let .cancel(id):
            return .cancel(EffectID(id))
        case .combined:
            return .send(.got(1)) + .combine(.send(.got(2)), .run { .got(3) })
        case let .got(value):
            state += value
            return .none
        case .child:
            return .none
        }
    },
    childReducer.scope(
        state: \.self,
        action: ActionPath(extract: { if case let .child(action) = $0 { action } else { nil } }, embed: Probe.child),
        environment: { _ in () })
)

@Suite("Effects")
struct EffectTests {
    private func makeStore(time: TestTime = TestTime()) -> TestStore<Int, Probe, ProbeEnvironment> {
        TestStore(state: 0, reducer: probeReducer, environment: ProbeEnvironment(time: time), time: time)
    }

    @Test("none does nothing")
    func none() async {
        let store = makeStore()
        let handle = await store.send(.none)
        #expect(handle.isEmpty)
        await store.finish()
    }

    @Test("send: the next actions come right after, in order")
    func send() async {
        let store = makeStore()
        await store.send(.sendTwo)
        await store.receive(.got(1)) { $0 = 1 }
        await store.receive(.got(2)) { $0 = 3 }
        await store.finish()
    }

    @Test("fire-and-forget work runs and sends nothing")
    func fireAndForget() async {
        let store = makeStore()
        let environment = ProbeEnvironment(time: TestTime())
        let local = TestStore(state: 0, reducer: probeReducer, environment: environment)
        await local.send(.fireAndForget).wait()
        #expect(environment.log.all == ["fired"])
        await local.finish()
        await store.finish()
    }

    @Test("async work may end with one action, or none")
    func runReturning() async {
        let store = makeStore()
        await store.send(.runReturning(5))
        await store.receive(.got(5)) { $0 = 5 }
        await store.send(.runReturning(nil)).wait()
        await store.finish()
    }

    @Test("an async sequence sends each of its actions")
    func sequence() async {
        let store = makeStore()
        await store.send(.sequence)
        await store.receive(.got(1)) { $0 = 1 }
        await store.receive(.got(2)) { $0 = 3 }
        await store.receive(.got(3)) { $0 = 6 }
        await store.finish()
    }

    @Test("cancelling by id stops the effect; nothing more arrives")
    func cancelByID() async {
        let time = TestTime()
        let store = makeStore(time: time)
        await store.send(.longSequence(id: "ticker"))
        await time.advance(by: .seconds(1))
        await store.receive(.got(1)) { $0 = 1 }
        await store.send(.cancel(id: "ticker"))
        await time.advance(by: .seconds(5))
        #expect(store.activeEffectCount == 0)
        await store.finish()
    }

    @Test("a new effect with the id of a running one replaces it")
    func replaceByID() async {
        let time = TestTime()
        let store = makeStore(time: time)
        await store.send(.longSequence(id: "ticker"))
        await store.send(.longSequence(id: "ticker"))
        #expect(store.activeEffectCount == 1)
        await time.advance(by: .seconds(1))
        await store.receive(.got(1)) { $0 = 1 }
        await store.send(.cancel(id: "ticker"))
        await store.finish()
    }

    @Test("effects combine, keeping their order")
    func combine() async {
        let store = makeStore()
        await store.send(.combined)
        await store.receive(.got(1)) { $0 = 1 }
        await store.receive(.got(2)) { $0 = 3 }
        await store.receive(.got(3)) { $0 = 6 }
        await store.finish()
    }

    @Test("a scoped child's effects come back as the parent's actions")
    func scopedEffects() async {
        let store = makeStore()
        await store.send(.child(.ping))
        await store.receive(.child(.pong))
        await store.finish()
    }

    @Test("the handle of a sent action waits for its effects, or cancels them")
    func handles() async {
        let time = TestTime()
        let store = makeStore(time: time)
        let finite = await store.send(.runReturning(2))
        await finite.wait()
        await store.receive(.got(2)) { $0 = 2 }

        let endless = await store.send(.longSequence(id: "a"))
        #expect(store.activeEffectCount == 1)
        endless.cancel()
        await endless.wait()
        #expect(store.activeEffectCount == 0)
        await store.finish()
    }

    @Test("Effect.map lifts every kind of step")
    func mapping() async throws {
        let effect: Effect<ChildProbe> = .send(.pong) + .cancel("x") + .run { .ping }
        let mapped = effect.map(Probe.child)
        #expect(mapped.steps.count == 3)
        guard case .send(.child(.pong)) = mapped.steps[0], case let .cancel(ids) = mapped.steps[1] else {
            Issue.record("unexpected steps \(mapped.steps)")
            return
        }
        #expect(ids == ["x"])
    }
}
