import Wire

/// The Core's logic as a pure function: apply an action to the state and say what should happen
/// next, as an ``Effect`` value; or refuse the action.
///
/// A reducer changes `state` in place and performs no I/O; time, randomness and other outside
/// things arrive through `environment`, and work with side effects is returned as effects for
/// the store to run. To refuse an action it throws a ``Rejection`` before changing anything:
/// the store applies reducers in place, without a copy of the state per action, so a change made
/// before the throw would stay (debug builds check this contract).
public struct Reducer<State, Action: Sendable, Environment>: Sendable {
    /// The function itself.
    public let reduce: @Sendable (inout State, Action, Environment) throws(Rejection) -> Effect<Action>

    /// A reducer from its function.
    /// - Parameter reduce: changes the state for an action (or throws a ``Rejection`` before
    ///   changing anything) and returns the effects to run, ``Effect/none`` for none.
    @inlinable public init(_ reduce: @escaping @Sendable (inout State, Action, Environment) throws(Rejection) -> Effect<Action>) {
        self.reduce = reduce
    }

    /// Applies the reducer: `try reducer(&state, action, environment)`.
    /// - Parameters:
    ///   - state: the state, changed in place.
    ///   - action: the action.
    ///   - environment: what the reducer may use of the outside world.
    @inlinable public func callAsFunction(_ state: inout State, _ action: Action, _ environment: Environment) throws(Rejection) -> Effect<Action> {
        try reduce(&state, action, environment)
    }

    /// Runs each reducer in turn on the same state and action; their effects are combined in
    /// the same order. Features usually handle disjoint actions; if one rejects an action, it
    /// must do so before any of them has changed the state.
    /// - Parameter reducers: the reducers, in the order they run.
    @inlinable public static func combine(_ reducers: Reducer...) -> Reducer {
        combine(reducers)
    }

    /// ``combine(_:)-(Reducer...)`` for an array.
    /// - Parameter reducers: the reducers, in the order they run.
    @inlinable public static func combine(_ reducers: [Reducer]) -> Reducer {
        // Two at a time, each a constant of its closure: a closure calls what it captured as it
        // is, where a loop over an array retains and releases each reducer it takes out (and
        // the array), about 150 instructions of every action for three reducers.
        guard let first = reducers.first else { return Reducer { _, _, _ in .none } }
        return reducers.dropFirst().reduce(first) { earlier, next in
            Reducer { state, action, environment throws(Rejection) in
                let before = try earlier(&state, action, environment)
                let after = try next(&state, action, environment)
                // No array at all when neither does something, as for most actions.
                if after.isNone { return before }
                if before.isNone { return after }
                return Effect(steps: before.steps + after.steps)
            }
        }
    }

    /// This reducer as part of a parent: it works on the part of the parent's state at `state`,
    /// sees only the parent's actions that `action` extracts, gets its environment from the
    /// parent's, and its effects' actions are embedded back into the parent's.
    /// - Parameters:
    ///   - path: where this reducer's state is in the parent's.
    ///   - action: how this reducer's actions sit in the parent's.
    ///   - toChild: this reducer's environment, made from the parent's.
    @inlinable public func scope<ParentState, ParentAction: Sendable, ParentEnvironment>(
        state path: WritableKeyPath<ParentState, State> & Sendable,
        action: ActionPath<ParentAction, Action>,
        environment toChild: @escaping @Sendable (ParentEnvironment) -> Environment
    ) -> Reducer<ParentState, ParentAction, ParentEnvironment> {
        let place = StatePlace(path)
        return Reducer<ParentState, ParentAction, ParentEnvironment> { parent, parentAction, parentEnvironment throws(Rejection) in
            guard let child = action.extract(parentAction) else { return .none }
            return try place.modify(&parent) { state throws(Rejection) in
                try self(&state, child, toChild(parentEnvironment))
            }.map(action.embed)
        }
    }

    /// ``scope(state:action:environment:)`` for a reducer that uses the parent's environment
    /// as it is: handed on, not made again (an environment returned by a function is a copy,
    /// each reference it holds retained and released, at every action).
    /// - Parameters:
    ///   - path: where this reducer's state is in the parent's.
    ///   - action: how this reducer's actions sit in the parent's.
    @inlinable public func scope<ParentState, ParentAction: Sendable>(
        state path: WritableKeyPath<ParentState, State> & Sendable,
        action: ActionPath<ParentAction, Action>
    ) -> Reducer<ParentState, ParentAction, Environment> {
        let place = StatePlace(path)
        return Reducer<ParentState, ParentAction, Environment> { parent, parentAction, environment throws(Rejection) in
            guard let child = action.extract(parentAction) else { return .none }
            return try place.modify(&parent) { state throws(Rejection) in
                try self(&state, child, environment)
            }.map(action.embed)
        }
    }
}

/// How a child's actions sit inside a parent's: a case of the parent's action enum, with the
/// function that takes the child's action out (nil for other cases) and the one that puts it in.
/// For `enum MyAction { case notes(NotesAction) }`:
/// `ActionPath(extract: { if case let .notes(a) = $0 { a } else { nil } }, embed: MyAction.notes)`.
public struct ActionPath<Parent, Child>: Sendable {
    /// The child's action in a parent's, or nil when it is another feature's.
    public let extract: @Sendable (Parent) -> Child?
    /// The parent's action that carries a child's.
    public let embed: @Sendable (Child) -> Parent

    /// - Parameters:
    ///   - extract: takes the child's action out of a parent's (nil for other cases).
    ///   - embed: puts a child's action in a parent's.
    @inlinable public init(extract: @escaping @Sendable (Parent) -> Child?, embed: @escaping @Sendable (Child) -> Parent) {
        self.extract = extract
        self.embed = embed
    }
}

extension ActionPath where Parent == Child {
    /// Every action, as it is.
    @inlinable public static var identity: ActionPath { ActionPath(extract: { $0 }, embed: { $0 }) }
}

extension Reducer {
    /// Re-applies recorded actions to `state`, in order, discarding the effects they return:
    /// how a journal is replayed. Actions that effects produced were recorded like any other, so
    /// replaying them gives the same state without running any effect again.
    /// Throws the first rejection (a recorded action is one that was applied, so a rejection
    /// means the record and the reducer disagree).
    public func replay(_ actions: some Sequence<Action>, on state: inout State, environment: Environment) throws(Rejection) {
        for action in actions {
            _ = try self(&state, action, environment)
        }
    }
}
