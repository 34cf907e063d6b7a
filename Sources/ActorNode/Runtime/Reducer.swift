import Wire

/// The Core's logic as a pure function: apply an action to the state, or refuse it.
///
/// A reducer changes `state` in place and must not perform I/O; time, randomness and other
/// effects arrive through `environment`. To refuse an action it throws a ``Rejection`` before
/// changing anything: the core applies reducers in place, without a copy of the state per
/// action, so a change made before the throw would stay (debug builds check this contract).
public struct Reducer<State, Action, Environment>: Sendable {
    public let reduce: @Sendable (inout State, Action, Environment) throws(Rejection) -> Void

    public init(_ reduce: @escaping @Sendable (inout State, Action, Environment) throws(Rejection) -> Void) {
        self.reduce = reduce
    }

    public func callAsFunction(_ state: inout State, _ action: Action, _ environment: Environment) throws(Rejection) {
        try reduce(&state, action, environment)
    }
}
