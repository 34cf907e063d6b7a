import FoundationEssentials

/// An environment whose "now" the store can set for each action: reducers read the time from
/// it, the store records that moment with the action, and a replay sets it again, so the
/// replayed state is exactly the original. (Effects keep the live clock.)
public protocol ActionTimedEnvironment: Sendable {
    /// This environment with `moment` as the reducers' "now".
    /// - Parameter moment: the moment the action is applied at.
    func applying(at moment: Date) -> Self

    /// Sets the reducers' "now" in place: what the store does before each action, so that no
    /// copy of the environment is made for it (a copy retains and releases everything the
    /// environment holds: a clock, a source of random numbers, closures). The default is
    /// `self = applying(at: moment)`; an environment that keeps "now" in a stored property
    /// sets that.
    /// - Parameter moment: the moment the action is applied at.
    mutating func setNow(_ moment: Date)
}

extension ActionTimedEnvironment {
    /// `self = applying(at: moment)`.
    /// - Parameter moment: the moment the action is applied at.
    public mutating func setNow(_ moment: Date) {
        self = applying(at: moment)
    }
}

extension StoreKernel {
    /// `environment` with `moment` as its "now", when it takes one: what the kernel gives the
    /// reducer for each action, what a replay of the journal gives it for each entry (with the
    /// moment recorded), and what `TestStore` gives it.
    /// - Parameters:
    ///   - environment: the app's environment.
    ///   - moment: the reducers' "now".
    package static func environment(_ environment: Environment, at moment: Date) -> Environment {
        guard let timed = environment as? any ActionTimedEnvironment else { return environment }
        return (timed.applying(at: moment) as? Environment) ?? environment
    }

    /// What sets an environment's "now" for each action, in place, found once for the type:
    /// when the type itself takes a "now", setting it costs no dynamic cast to a protocol,
    /// which the kernel would otherwise pay at every action, and no copy of the environment.
    /// (For another type, an existential or a class whose instances may take one, each value
    /// is asked, as ``environment(_:at:)`` does.)
    static func timing() -> @Sendable (inout Environment, Date) -> Void {
        guard let timed = Environment.self as? any ActionTimedEnvironment.Type else {
            return { environment, moment in environment = Self.environment(environment, at: moment) }
        }
        return timing(timed)
    }

    private static func timing<Timed: ActionTimedEnvironment>(_: Timed.Type) -> @Sendable (inout Environment, Date) -> Void {
        { environment, moment in
            // Timed is Environment itself (opened from its metatype above): the same memory,
            // seen as the one type (a cast would ask the runtime at every action).
            withUnsafeMutablePointer(to: &environment) { pointer in
                UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: Timed.self).pointee.setNow(moment)
            }
        }
    }
}
