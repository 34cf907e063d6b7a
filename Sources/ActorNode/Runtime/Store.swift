import FoundationEssentials
import Wire

/// Where an action came from.
public enum ActionOrigin: Sendable, Equatable, CustomStringConvertible {
    /// From a client, with its id and the action's sequence number: applied at most once.
    case client(id: String, seq: UInt64)
    /// From outside the store otherwise (named, when known).
    case outside(String?)
    /// From an effect the store ran.
    case effect

    public var description: String {
        switch self {
        case let .client(id, seq): return "client \(id) #\(seq)"
        case let .outside(name?): return name
        case .outside(nil): return "outside"
        case .effect: return "effect"
        }
    }
}

/// One applied action, as the store's observer sees it: everything a journal needs to record
/// it and a broadcaster needs to describe it.
public struct Transition<State: Sendable, Action: Sendable>: Sendable {
    public let action: Action
    public let origin: ActionOrigin
    public let revision: UInt64
    /// The moment the reducer saw as "now" (recorded, so that a replay sees it again).
    public let at: Date
    /// The state before, when the observer asked for it.
    public let previous: State?
    public let state: State
    /// The client ledger after this action.
    public let ledger: ClientLedger
}

/// What happened in a store, told to its observer as it happens, inside the store.
public enum StoreEvent<State: Sendable, Action: Sendable>: Sendable {
    /// An action was applied.
    case applied(Transition<State, Action>)
    /// An action was refused; the state did not change.
    case rejected(action: Action, origin: ActionOrigin, rejection: Rejection)
}

/// The answer to ``Store/send(_:from:)``.
public enum Sent: Sendable {
    /// Applied; its revision, and a handle on the effects it started.
    case applied(revision: UInt64, effects: EffectHandle)
    /// This client's action with this sequence number was applied before, as `revision`; it was
    /// not applied again.
    case duplicate(revision: UInt64)
    case rejected(Rejection)
}

/// An environment whose "now" the store can set for each action: reducers read the time from
/// it, the store records that moment with the action, and a replay sets it again, so the
/// replayed state is exactly the original. (Effects keep the live clock.)
public protocol ActionTimedEnvironment: Sendable {
    /// This environment with `moment` as the reducers' "now".
    func applying(at moment: Date) -> Self
}

/// The single writer: an actor that owns the state, applies actions one at a time with a
/// reducer, numbers each applied action with the next revision, and runs the effects the
/// reducer returns, feeding the actions they produce back in like any other.
///
/// Its observer is called synchronously inside the store for every applied or rejected action,
/// in order, so that whatever it does (broadcast, log, journal) sees the revisions in sequence.
public actor Store<State: Sendable, Action: Sendable, Environment: Sendable> {
    /// Whether the observer wants the state before each action (to diff against).
    public typealias WantsPrevious = @Sendable () -> Bool
    public typealias Observer = @Sendable (StoreEvent<State, Action>) -> Void

    /// The state, its revision and the ledger, with the rules that change them.
    private var kernel: StoreKernel<State, Action, Environment>
    /// The state after every action applied so far.
    public var state: State { kernel.state }
    /// The revision of ``state``.
    public var revision: UInt64 { kernel.revision }
    /// Which client actions were applied.
    public var ledger: ClientLedger { kernel.ledger }
    private let time: any TimeSource
    private let observe: Observer
    private let wantsPrevious: WantsPrevious
    private let runtime: EffectRuntime<Action>
    /// Actions produced by effects, applied in the order they arrive.
    private let effectActions = Chan<Action>()

    public init(
        state: State,
        revision: UInt64 = 0,
        ledger: ClientLedger = ClientLedger(),
        reducer: Reducer<State, Action, Environment>,
        environment: Environment,
        time: any TimeSource = SystemTime(),
        wantsPrevious: @escaping WantsPrevious = { false },
        observe: @escaping Observer = { _ in }
    ) {
        kernel = StoreKernel(state: state, revision: revision, ledger: ledger, reducer: reducer, environment: environment, time: time)
        self.time = time
        self.observe = observe
        self.wantsPrevious = wantsPrevious
        let effectActions = effectActions
        runtime = EffectRuntime(time: time) { await effectActions.send($0) }
        Task { [weak self] in
            while let action = await effectActions.receive() {
                await self?.apply(action, from: .effect)
            }
        }
    }

    deinit {
        effectActions.close()
        runtime.cancelAll()
    }

    /// The state and its revision together.
    public var current: (revision: UInt64, state: State) {
        (revision, state)
    }

    /// Effects running or waiting now.
    public nonisolated var activeEffectCount: Int {
        runtime.activeCount
    }

    /// Applies `action`; returns its revision and a handle on the effects it started, or why it
    /// was refused.
    @discardableResult
    public func send(_ action: Action, from origin: ActionOrigin = .outside(nil)) -> Sent {
        apply(action, from: origin)
    }

    /// Runs `body` with the current revision and state, inside the store: no action is applied
    /// meanwhile, so whatever `body` sets up sees every later revision.
    public func read<T: Sendable>(_ body: @Sendable (UInt64, State) throws -> T) rethrows -> T {
        try body(revision, state)
    }

    /// Cancels every effect.
    public func cancelAllEffects() {
        runtime.cancelAll()
    }

    @discardableResult
    private func apply(_ action: Action, from origin: ActionOrigin) -> Sent {
        switch kernel.apply(action, from: origin, keepingPrevious: wantsPrevious()) {
        case let .duplicate(revision):
            return .duplicate(revision: revision)
        case let .rejected(rejection):
            // A sequence the ledger no longer remembers never reached the reducers.
            if rejection.code != "stale_sequence" {
                observe(.rejected(action: action, origin: origin, rejection: rejection))
            }
            return .rejected(rejection)
        case let .applied(applied):
            observe(.applied(Transition(
                action: action, origin: origin, revision: applied.revision, at: applied.at,
                previous: applied.previous, state: kernel.state, ledger: kernel.ledger)))
            return .applied(revision: applied.revision, effects: run(applied.effect))
        }
    }

    private func run(_ effect: Effect<Action>) -> EffectHandle {
        var tasks: [Task<Void, Never>] = []
        for step in effect.steps {
            switch step {
            case let .send(next):
                if case let .applied(_, handle) = apply(next, from: .effect) {
                    tasks += handle.tasks
                }
            case let .work(work):
                if let task = runtime.start(work) { tasks.append(task) }
            case let .cancel(ids):
                runtime.cancel(ids)
            }
        }
        return EffectHandle(tasks: tasks)
    }

    /// `environment` with `moment` as its "now", when it takes one.
    public static func environment(_ environment: Environment, at moment: Date) -> Environment {
        guard let timed = environment as? any ActionTimedEnvironment else { return environment }
        return (timed.applying(at: moment) as? Environment) ?? environment
    }

    /// What sets an environment's "now" for each action, found once for the type: when the
    /// type itself takes a "now", applying it costs no dynamic cast to a protocol, which the
    /// store's kernel would otherwise pay at every action. (For another type, an existential
    /// or a class whose instances may take one, each value is asked, as
    /// ``environment(_:at:)`` does.)
    static func timing() -> @Sendable (Environment, Date) -> Environment {
        guard let timed = Environment.self as? any ActionTimedEnvironment.Type else {
            return { environment, moment in Self.environment(environment, at: moment) }
        }
        return timing(timed)
    }

    private static func timing<Timed: ActionTimedEnvironment>(_: Timed.Type) -> @Sendable (Environment, Date) -> Environment {
        { environment, moment in
            // Timed is Environment itself (opened from its metatype above): these casts cannot
            // fail, and as forced casts between one type they cost no optional's metadata.
            (environment as! Timed).applying(at: moment) as! Environment
        }
    }

}
