import FoundationEssentials

/// An environment whose "now" the store can set for each action: reducers read the time from
/// it, the store records that moment with the action, and a replay sets it again, so the
/// replayed state is exactly the original. (Effects keep the live clock.)
public protocol ActionTimedEnvironment: Sendable {
    /// This environment with `moment` as the reducers' "now".
    func applying(at moment: Date) -> Self
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

    /// What sets an environment's "now" for each action, found once for the type: when the
    /// type itself takes a "now", applying it costs no dynamic cast to a protocol, which the
    /// kernel would otherwise pay at every action. (For another type, an existential or a class
    /// whose instances may take one, each value is asked, as ``environment(_:at:)`` does.)
    static func timing() -> @Sendable (Environment, Date) -> Environment {
        guard let timed = Environment.self as? any ActionTimedEnvironment.Type else {
            return { environment, moment in Self.environment(environment, at: moment) }
        }
        return timing(timed)
    }

    private static func timing<Timed: ActionTimedEnvironment>(_: Timed.Type) -> @Sendable (Environment, Date) -> Environment {
        { environment, moment in
            // Timed is Environment itself (opened from its metatype above), so each is the
            // other as it is: reinterpreted, not cast (a forced cast still asks the runtime,
            // ~90 instructions each, twice an action).
            unsafeBitCast(unsafeBitCast(environment, to: Timed.self).applying(at: moment), to: Environment.self)
        }
    }
}
