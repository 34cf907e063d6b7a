/// When a core that died is started again, and when the launcher stops trying.
///
/// Like systemd's `RestartSec` with a backoff and `StartLimitBurst`/`StartLimitIntervalSec`,
/// and Erlang/OTP's restart intensity: the delay starts at 100 ms and doubles up to 5 s; a core
/// that ran well for a while starts the delay over; more than `maximumRestarts` restarts within
/// `window` means something is wrong that restarting will not fix.
struct RestartPolicy: Sendable {
    var initialDelay: Duration = .milliseconds(100)
    var maximumDelay: Duration = .seconds(5)
    /// A core that ran this long before dying was healthy: the next delay is the initial one.
    var healthyAfter: Duration = .seconds(10)
    var maximumRestarts = 5
    var window: Duration = .seconds(30)

    /// The delay after `delay`: doubled, up to the maximum.
    func next(after delay: Duration) -> Duration {
        min(delay * 2, maximumDelay)
    }
}

/// The record of a supervisor's restarts, for the policy's limit.
struct RestartHistory: Sendable {
    private(set) var failures: [ContinuousClock.Instant] = []

    /// Notes a failure at `moment`; returns the failures within `window` before it, this one
    /// included.
    mutating func record(_ moment: ContinuousClock.Instant, window: Duration) -> [ContinuousClock.Instant] {
        failures.append(moment)
        failures.removeAll { moment - $0 > window }
        return failures
    }
}
