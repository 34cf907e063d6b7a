import FoundationEssentials
import Wire

/// The rules of the single writer: apply an action with the reducer (at most once per client
/// and sequence number), number it with the next revision, and record it in the ledger. It runs
/// no effects and tells no one: its owner (a core's engine on its event loop) does that with
/// what ``apply(_:from:)`` returns and the kernel's ``effect``.
///
/// A class, owned by one engine and used on its thread only: the engine's code is not
/// specialized for the app's types, and a method of a generic struct called from such code is
/// handed the struct's metadata, looked up in the runtime's cache at every call (about 350
/// instructions an action, callgrind); an instance of a generic class carries its own. Its state
/// is marked `@exclusivity(unchecked)`, as its engine's is (see `CoreEngine`).
package final class StoreKernel<State: Sendable, Action: Sendable, Environment: Sendable> {
    // The stored properties whose size does not depend on the app's types come first: their
    // places are then known when compiled, and the core's unspecialized code reaches them
    // without looking up this type's metadata.

    /// The revision of ``state``: the number of actions applied since the beginning.
    @exclusivity(unchecked) package private(set) var revision: UInt64
    /// Which client actions were applied, for exactly-once.
    @exclusivity(unchecked) package private(set) var ledger: ClientLedger
    /// The durable timers scheduled now.
    @exclusivity(unchecked) package private(set) var timers: DurableTimers<Action>
    /// What the last applied action's reducer asked to run next.
    @exclusivity(unchecked) package private(set) var effect: Effect<Action> = .none
    /// The moment the last applied action's reducer saw as "now" (recorded, so that a replay
    /// sees it again).
    @exclusivity(unchecked) package private(set) var moment = Date(timeIntervalSince1970: 0)
    let reducer: Reducer<State, Action, Environment>
    let time: any TimeSource
    /// Sets the environment's "now" for each action, when it takes one.
    private let timing: @Sendable (inout Environment, Date) -> Void
    /// The app's environment, its "now" set in place before each action.
    @exclusivity(unchecked) private(set) var environment: Environment
    /// The state after every action applied so far.
    @exclusivity(unchecked) package private(set) var state: State

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

    /// Applies `action`. What the reducer asked to run next is then ``effect``, and the moment
    /// it saw ``moment``. (The answer is not generic, so that the core's unspecialized code
    /// holds it without looking up a type's metadata at every action; a caller that wants the
    /// state before copies ``state`` first.)
    /// - Parameters:
    ///   - action: the action.
    ///   - origin: who sent it; a client's (id, seq) is applied at most once, and a timer's
    ///     firing only while that timer is scheduled (``DurableTimers/isScheduled(_:deadline:)``;
    ///     the caller checks it first).
    package func apply(_ action: Action, from origin: ActionOrigin) -> ApplyOutcome {
        var remembered: ClientLedger.Place?
        return apply(action, from: origin, ledgerPlace: &remembered)
    }

    /// ``apply(_:from:)`` for a client whose entry in the ledger was found before, at
    /// `ledgerPlace` (see ``ClientLedger/place(of:remembered:)``): its id is not hashed again.
    /// - Parameters:
    ///   - action: the action.
    ///   - origin: who sent it.
    ///   - ledgerPlace: where the ledger said this sender's entry was, kept by the caller
    ///     per sender; updated.
    package func apply(_ action: Action, from origin: ActionOrigin, ledgerPlace: inout ClientLedger.Place?) -> ApplyOutcome {
        var place: [String: ClientLedger.Client].Index?
        if case let .client(id, seq) = origin {
            place = ledger.place(of: id, remembered: &ledgerPlace)
            switch ledger.verdict(at: place, seq: seq) {
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
        #if DEBUG
        let before = state
        #endif
        let moment = time.now
        let effect: Effect<Action>
        do {
            timing(&environment, moment)
            effect = try Self.reduce(reducer, &state, action, &environment)
        } catch {
            #if DEBUG
            if !Self.unchanged(state, before) {
                assertionFailure("a reducer changed the state, then rejected \(action): \(error)")
                state = before
            }
            #endif
            return .rejected(error)
        }
        revision += 1
        switch origin {
        case let .client(id, seq):
            ledger.record(client: id, seq: seq, revision: revision, at: place)
        case let .timer(id, _):
            timers.fired(id)
        case .outside, .effect:
            break
        }
        if !effect.isNone { timers.note(effect) }
        self.effect = effect
        self.moment = moment
        return .applied(revision: revision)
    }

    /// Runs `reducer` with the environment borrowed where it lies: handed on from an `inout`,
    /// it is not copied. (Handed from the kernel's stored property, it was copied at every
    /// action, and each reference it holds retained and released: some 300 instructions an
    /// action for an environment of four references, callgrind.)
    private static func reduce(
        _ reducer: Reducer<State, Action, Environment>, _ state: inout State, _ action: Action, _ environment: inout Environment
    ) throws(Rejection) -> Effect<Action> {
        try reducer(&state, action, environment)
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

/// What became of an action given to ``StoreKernel/apply(_:from:)``.
package enum ApplyOutcome: Sendable, Equatable {
    /// Applied as `revision`.
    case applied(revision: UInt64)
    /// This client's action with this sequence number was applied before, as `revision`.
    case duplicate(revision: UInt64)
    /// Refused (by the reducer, or as older than the ledger remembers); nothing changed.
    case rejected(Rejection)
}
