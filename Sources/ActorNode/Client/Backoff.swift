/// The one rule for trying a core again: wait 100 ms before the first attempt, then twice as
/// long before each next one, never more than 2 s, for as long as the caller's window lasts.
/// Quick after a core's restart (a supervisor has it back within a few hundred milliseconds),
/// and at most one attempt every 2 s against a core that stays away.
package struct Backoff: Sendable, Equatable {
    /// The first wait.
    package static let initialDelay = Duration.milliseconds(100)
    /// The longest wait.
    package static let maximumDelay = Duration.seconds(2)

    private var delay = Backoff.initialDelay

    package init() {}

    /// The wait before the next attempt; each call doubles the one after it.
    package mutating func next() -> Duration {
        defer { delay = min(delay * 2, Self.maximumDelay) }
        return delay
    }
}
