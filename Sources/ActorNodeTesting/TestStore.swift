// Swift Testing has no static library: a build that links the Swift libraries statically
// (`swift build -c release --static-swift-stdlib`, the release build of the executables, which
// never link this target) leaves the TestStore out; the tests, built the ordinary way, have it.
#if canImport(Testing)
import ActorNode
import Testing
import Wire

/// Exhaustive tests of a reducer and its effects, in the spirit of TCA's TestStore.
///
/// Every change must be expected: ``send(_:sourceLocation:_:)`` applies an action and checks
/// that the state became exactly what the test says. Actions that effects send are not applied
/// on their own: each must be taken with ``receive(_:sourceLocation:_:)``, in order. And
/// ``finish(sourceLocation:)`` fails if any such action was left unreceived or any effect is
/// still running. After every change it checks that the patch shells would be sent for it
/// gives them the new state (``PatchCheck``). Failures are recorded as issues with a readable
/// diff of the state.
///
///     let store = TestStore(state: NotesState(), reducer: NotesReducer.reducer, environment: env)
///     await store.send(.add("milk")) { $0.items = ["milk"] }
///     await store.send(.shuffle)
///     await store.receive(.reorder([0])) { $0.order = [0] }
///     await store.finish()
public final class TestStore<State: Equatable & Encodable & Sendable, Action: Equatable & Encodable & Sendable, Environment: Sendable> {
    /// The state after everything sent and received so far.
    public private(set) var state: State
    /// How long ``receive(_:sourceLocation:_:)`` and ``finish(sourceLocation:)`` wait, in real time.
    public var timeout: Duration

    private let reducer: Reducer<State, Action, Environment>
    private let environment: Environment
    private let time: any TimeSource
    private let runtime: EffectRuntime<Action>
    private let received = Chan<Action>()

    /// A store for one test.
    /// - Parameters:
    ///   - state: the state to start from.
    ///   - reducer: the reducer under test.
    ///   - environment: its environment (a ``TestTime`` and a seeded ``RandomSource`` make
    ///     effects repeatable).
    ///   - time: the clock effects' queues wait on.
    ///   - timeout: how long to wait for an effect's action, in real time.
    public init(
        state: State,
        reducer: Reducer<State, Action, Environment>,
        environment: Environment,
        time: any TimeSource = TestTime(),
        timeout: Duration = .seconds(2)
    ) {
        self.state = state
        self.reducer = reducer
        self.environment = environment
        self.time = time
        self.timeout = timeout
        let received = self.received
        runtime = EffectRuntime(time: time) { action, _ in await received.send(action) }
    }

    deinit {
        runtime.cancelAll()
    }

    /// Effects running or waiting now.
    public var activeEffectCount: Int { runtime.activeCount }

    /// Sends `action`; `update` turns the state before into the state the test expects after
    /// (leave it out when the action must not change the state). Returns a handle on the effects
    /// the action started.
    /// - Parameters:
    ///   - action: the action.
    ///   - sourceLocation: where a failure is reported.
    ///   - update: turns the state before into the one expected after.
    @discardableResult
    public func send(
        _ action: Action, sourceLocation: SourceLocation = #_sourceLocation,
        _ update: ((inout State) -> Void)? = nil
    ) async -> EffectHandle {
        await checkNothingPending(before: "sending \(describe(action))", sourceLocation: sourceLocation)
        return apply(action, what: "sending \(describe(action))", update: update, sourceLocation: sourceLocation)
    }

    /// Sends `action`, which the reducer must refuse with `code`, leaving the state as it was.
    /// - Parameters:
    ///   - action: the action.
    ///   - code: the rejection's code.
    ///   - sourceLocation: where a failure is reported.
    public func send(_ action: Action, rejectedWith code: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        await checkNothingPending(before: "sending \(describe(action))", sourceLocation: sourceLocation)
        let before = state
        do {
            _ = try reducer(&state, action, timedEnvironment)
            Issue.record("\(describe(action)) was applied; the test expected it to be rejected with '\(code)'", sourceLocation: sourceLocation)
        } catch {
            if error.code != code {
                Issue.record("\(describe(action)) was rejected with '\(error.code)' (\(error.message)); the test expected '\(code)'", sourceLocation: sourceLocation)
            }
            if state != before {
                Issue.record("the reducer changed the state before rejecting \(describe(action)):\n\(Self.difference(expected: before, actual: state))", sourceLocation: sourceLocation)
                state = before
            }
        }
    }

    /// Waits for the next action an effect sent, checks that it is `expected`, applies it, and
    /// checks the state change as ``send(_:sourceLocation:_:)`` does.
    /// - Parameters:
    ///   - expected: the action an effect must have sent next.
    ///   - sourceLocation: where a failure is reported.
    ///   - update: turns the state before into the one expected after.
    @discardableResult
    public func receive(
        _ expected: Action, sourceLocation: SourceLocation = #_sourceLocation,
        _ update: ((inout State) -> Void)? = nil
    ) async -> EffectHandle {
        await receive(describing: describe(expected), matching: { $0 == expected }, sourceLocation: sourceLocation, update)
    }

    /// Like ``receive(_:sourceLocation:_:)`` for an action known only by a property (one that
    /// carries a time, say): `matching` says whether the received action is the one expected.
    /// - Parameters:
    ///   - description: the action expected, for a failure.
    ///   - matching: whether the received action is the one expected.
    ///   - sourceLocation: where a failure is reported.
    ///   - update: turns the state before into the one expected after.
    @discardableResult
    public func receive(
        describing description: String, matching: (Action) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ update: ((inout State) -> Void)? = nil
    ) async -> EffectHandle {
        guard let action = await nextReceived() else {
            Issue.record("expected to receive \(description), but no effect sent an action within \(timeout)", sourceLocation: sourceLocation)
            return .none
        }
        guard matching(action) else {
            Issue.record("received \(self.describe(action)), but the test expected \(description)", sourceLocation: sourceLocation)
            return .none
        }
        return apply(action, what: "receiving \(self.describe(action))", update: update, sourceLocation: sourceLocation)
    }

    /// Ends the test: fails if an action from an effect was not received, or if an effect is
    /// still running after `timeout` (a timer nobody stopped, a request never answered).
    /// - Parameter sourceLocation: where a failure is reported.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now + timeout
        while runtime.activeCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        var unreceived: [String] = []
        while received.count > 0, let action = await received.receive() {
            unreceived.append(describe(action))
        }
        if !unreceived.isEmpty {
            Issue.record("effects sent actions the test did not receive: \(unreceived.joined(separator: ", "))", sourceLocation: sourceLocation)
        }
        if runtime.activeCount > 0 {
            let ids = runtime.activeIDs.map(\.name).sorted()
            Issue.record("\(runtime.activeCount) effect(s) still running at the end of the test\(ids.isEmpty ? "" : " (ids: \(ids.joined(separator: ", ")))"); cancel or finish them", sourceLocation: sourceLocation)
            runtime.cancelAll()
        }
    }

    /// Cancels every effect, for a test that deliberately stops while one runs.
    public func cancelEffects() {
        runtime.cancelAll()
    }

    private func apply(_ action: Action, what: String, update: ((inout State) -> Void)?, sourceLocation: SourceLocation) -> EffectHandle {
        var expected = state
        update?(&expected)
        let before = state
        let effect: Effect<Action>
        do {
            effect = try reducer(&state, action, timedEnvironment)
        } catch {
            Issue.record("\(what): the reducer rejected it: \(error.message) (\(error.code))", sourceLocation: sourceLocation)
            return .none
        }
        if state != expected {
            Issue.record("\(what): the state is not what the test expects:\n\(Self.difference(expected: expected, actual: state))", sourceLocation: sourceLocation)
        }
        // What shells would be sent for this change must give them the new state.
        do throws(PatchCheck.Failure) {
            try PatchCheck.verify(from: before, to: state)
        } catch {
            Issue.record("\(what): shells would not follow this change: \(error)", sourceLocation: sourceLocation)
        }
        return run(effect)
    }

    /// The environment with the test time as the reducer's "now", as a store would give it.
    private var timedEnvironment: Environment {
        StoreKernel<State, Action, Environment>.environment(environment, at: time.now)
    }

    /// Starts the effect's work; actions it sends (at once or later) wait to be received.
    private func run(_ effect: Effect<Action>) -> EffectHandle {
        var tasks: [Task<Void, Never>] = []
        for step in effect.steps {
            switch step {
            case let .send(action):
                received.trySend(action)
            case let .work(work):
                if let task = runtime.start(work) { tasks.append(task) }
            case let .cancel(ids):
                runtime.cancel(ids)
            case let .timer(timer):
                // A durable timer waits on the test's time: advance it to fire the timer.
                if let task = runtime.arm(timer) { tasks.append(task) }
            }
        }
        return EffectHandle(tasks: tasks)
    }

    private func checkNothingPending(before what: String, sourceLocation: SourceLocation) async {
        // Give effects that finished a moment to hand over what they sent.
        await Task.yield()
        if received.count > 0 {
            var pending: [String] = []
            while received.count > 0, let action = await received.receive() { pending.append(describe(action)) }
            Issue.record("effects sent actions the test did not receive before \(what): \(pending.joined(separator: ", "))", sourceLocation: sourceLocation)
        }
    }

    private func nextReceived() async -> Action? {
        let received = self.received
        let timeout = self.timeout
        return await race([
            { @Sendable in await received.receive() },
            { @Sendable in
                await EventLoop.shared.sleep(for: timeout)
                return nil
            },
        ])
    }

    private func describe(_ action: Action) -> String {
        (try? WireJSON.string(action)) ?? String(describing: action)
    }

    /// One line per difference: `/counter/value: expected 2, got 1`.
    static func difference(expected: State, actual: State) -> String {
        guard let expectedJSON = try? JSONValue(encoding: expected), let actualJSON = try? JSONValue(encoding: actual) else {
            return "  expected: \(expected)\n  actual:   \(actual)"
        }
        let patch = JSONValue.diff(from: expectedJSON, to: actualJSON)
        return patch.map { operation in
            let path = operation.path.tokens.isEmpty ? "(the whole state)" : operation.path.description
            let expectedValue = expectedJSON.value(at: operation.path).map(json) ?? "nothing"
            let actualValue = operation.value.map(json) ?? "nothing"
            switch operation.op {
            case .move:
                return "  \(operation.from?.description ?? "?") moved to \(path)"
            default:
                return "  \(path): expected \(expectedValue), got \(actualValue)"
            }
        }.joined(separator: "\n")
    }

    private static func json(_ value: JSONValue) -> String {
        (try? WireJSON.string(value)) ?? "?"
    }
}
#endif
