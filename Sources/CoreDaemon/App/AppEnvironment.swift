import ActorNode
import FoundationEssentials

/// What the app's reducers and effects may use from the outside world. Tests pass a
/// ``TestTime`` they advance by hand and a seeded ``RandomSource``.
struct AppEnvironment: ActionTimedEnvironment {
    /// The live clock, for effects (timer ticks sleep on it).
    var time: any TimeSource = SystemTime()
    /// "Now" for reducers: set by the store for each action, recorded in the journal with it,
    /// and set again when the journal is replayed, so a replay computes the same deadlines.
    var now = Date(timeIntervalSince1970: 0)
    /// Random numbers (counter randomize, pick), drawn by effects only.
    var random: RandomSource = .system
    /// Tells every attached shell something (a focus completed).
    var notify: @Sendable (String) -> Void = { _ in }

    func applying(at moment: Date) -> AppEnvironment {
        var copy = self
        copy.now = moment
        return copy
    }

    /// Sets the reducers' "now" in place (the store does, before each action).
    /// - Parameter moment: the moment the action is applied at.
    mutating func setNow(_ moment: Date) {
        now = moment
    }
}
