import FoundationEssentials
import Wire

/// The rules of the single writer, as a value: apply an action with the reducer (at most once
/// per client and sequence number), number it with the next revision, and record it in the
/// ledger. It runs no effects and tells no one: its owner (a core's engine on its event loop,
/// or `TestStore`) does that with what ``apply(_:from:keepingPrevious:)`` returns.
package struct StoreKernel<State: Sendable, Action: Sendable, Environment: Sendable>: Sendable {
    /// The state after every action applied so far.
    package private(set) var state: State
    /// The revision of ``state``: the number of actions applied since the beginning.
    package private(set) var revision: UInt64
    /// Which client actions were applied, for exactly-once.
    package private(set) var ledger: ClientLedger
    /// The durable timers scheduled now.
    package private(set) var timers: DurableTimers<Action>
    let reducer: Reducer<State, Action, Environment>
    let environment: Environment
    let time: any TimeSource
    /// Sets the environment's "now" for each action, when it takes one.
    private let timing: @Sendable (Environment, Date) -> Environment

    /// What became of an action.
    package enum Outcome: Sendable {
        /// Applied as `revision`; `previous` is the state before, when it was asked for.
        case applied(Applied)
        /// This client's action with this sequence number was applied before, as `revision`.
        case duplicate(revision: UInt64)
        /// Refused (by the reducer, or as older than the ledger remembers); nothing changed.
        case rejected(Rejection)
    }

    /// One applied action.
    package struct Applied: Sendable {
        package let action: Action
        package let origin: ActionOrigin
        package let revision: UInt64
        /// The moment the reducer saw as "now" (recorded, so that a replay sees it again).
        package let at: Date
        /// The state before, when the caller asked to keep it (to diff against).
        package let previous: State?
        /// What the reducer asked to run next.
        package let effect: Effect<Action>
    }

    /// - Parameters:
    ///   - state: the state to start from.
    ///   - revision: its revision.
    ///   - ledger: the client ledger at that revision.
    ///   - timers: the durable timers scheduled at that revision.
    ///   - reducer: the app's reducer.
    ///   - environment: its environment.
    ///   - time: where "now" comes from for each action.
    package init(
        state: State, revision: UInt64 = 0, ledger: ClientLedger = ClientLedger(), timers: DurableTimers<Action> = DurableTimers(),
        reducer: Reducer<State, Action, Environment>, environment: Environment, time: any TimeSource = SystemTime()
    ) {
        self.state = state
        self.revision = revision
        self.ledger = ledger
        self.timers = timers
        self.reducer = reducer
        self.environment = environment
        self.time = time
        timing = Self.timing()
    }

    /// Applies `action`.
    /// - Parameters:
    ///   - action: the action.
    ///   - origin: who sent it; a client's (id, seq) is applied at most once, and a timer's
    ///     firing only while that timer is scheduled (``DurableTimers/isScheduled(_:deadline:)``;
    ///     the caller checks it first).
    ///   - keepingPrevious: whether to return the state before (to diff against).
    package mutating func apply(_ action: Action, from origin: ActionOrigin, keepingPrevious: Bool) -> Outcome {
        if case let .client(id, seq) = origin {
            switch ledger.verdict(client: id, seq: seq) {
            case .new:
                break
            case let .applied(revision):
                return .duplicate(revision: revision)
            case .forgotten:
                return .rejected(Rejection(
                    code: "stale_sequence",
                    message: "action #\(seq) of this client is older than the core remembers; it may have been applied: check the state before sending it again"))
            }
        }
        var previous: State? = keepingPrevious ? state : nil
        #if DEBUG
        previous = previous ?? state
        #endif
        let moment = time.now
        let effect: Effect<Action>
        do {
            effect = try reducer(&state, action, timing(environment, moment))
        } catch {
            if let previous, !Self.unchanged(state, previous) {
                assertionFailure("a reducer changed the state, then rejected \(action): \(error)")
                state = previous
            }
            return .rejected(error)
        }
        revision += 1
        switch origin {
        case let .client(id, seq):
            ledger.record(client: id, seq: seq, revision: revision)
        case let .timer(id, _):
            timers.fired(id)
        case .outside, .effect:
            break
        }
        if !effect.isNone { timers.note(effect) }
        #if DEBUG
        if !keepingPrevious { previous = nil }
        #endif
        return .applied(Applied(action: action, origin: origin, revision: revision, at: moment, previous: previous, effect: effect))
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
