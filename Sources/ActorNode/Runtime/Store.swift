import Wire

/// Where an action came from.
public enum ActionOrigin: Sendable, Equatable, CustomStringConvertible {
    /// From outside the store, e.g. a client (named, when known).
    case outside(String?)
    /// From an effect the store ran.
    case effect

    public var description: String {
        switch self {
        case let .outside(name?): return name
        case .outside(nil): return "outside"
        case .effect: return "effect"
        }
    }
}

/// What happened in a store, told to its observer as it happens, inside the store.
public enum StoreEvent<State: Sendable, Action: Sendable>: Sendable {
    /// An action was applied and produced `revision`. `previous` is the state before it, when
    /// the observer asked for it.
    case applied(action: Action, origin: ActionOrigin, revision: UInt64, previous: State?, state: State)
    /// An action was refused; the state did not change.
    case rejected(action: Action, origin: ActionOrigin, rejection: Rejection)
}

/// The answer to ``Store/send(_:from:)``.
public enum Sent: Sendable {
    /// Applied; its revision, and a handle on the effects it started.
    case applied(revision: UInt64, effects: EffectHandle)
    case rejected(Rejection)
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

    public private(set) var state: State
    public private(set) var revision: UInt64
    private let reducer: Reducer<State, Action, Environment>
    private let environment: Environment
    private let observe: Observer
    private let wantsPrevious: WantsPrevious
    private let runtime: EffectRuntime<Action>
    /// Actions produced by effects, applied in the order they arrive.
    private let effectActions = Chan<Action>()

    public init(
        state: State,
        revision: UInt64 = 0,
        reducer: Reducer<State, Action, Environment>,
        environment: Environment,
        time: any TimeSource = SystemTime(),
        wantsPrevious: @escaping WantsPrevious = { false },
        observe: @escaping Observer = { _ in }
    ) {
        self.state = state
        self.revision = revision
        self.reducer = reducer
        self.environment = environment
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
        var previous: State? = wantsPrevious() ? state : nil
        #if DEBUG
        previous = previous ?? state
        #endif
        let effect: Effect<Action>
        do {
            effect = try reducer(&state, action, environment)
        } catch {
            if let previous, !Self.unchanged(state, previous) {
                assertionFailure("a reducer changed the state, then rejected \(action): \(error)")
                state = previous
            }
            observe(.rejected(action: action, origin: origin, rejection: error))
            return .rejected(error)
        }
        revision += 1
        observe(.applied(action: action, origin: origin, revision: revision, previous: previous, state: state))
        let applied = revision
        return .applied(revision: applied, effects: run(effect))
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

    private static func unchanged(_ state: State, _ previous: State) -> Bool {
        guard let state = state as? any Equatable else { return true }
        return state.isEqual(to: previous)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
