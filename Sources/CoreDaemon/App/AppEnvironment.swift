import ActorNode

/// What the app's reducers and effects may use from the outside world. Tests pass a
/// ``TestTime`` they advance by hand and a seeded ``RandomSource``.
struct AppEnvironment: Sendable {
    /// The wall clock, and sleeping (timer ticks).
    var time: any TimeSource = SystemTime()
    /// Random numbers (counter randomize, pick).
    var random: RandomSource = .system
    /// Tells every attached shell something (a focus completed).
    var notify: @Sendable (String) -> Void = { _ in }
}
