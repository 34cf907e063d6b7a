import Testing

/// Waits until `condition` holds, checking every few milliseconds; records an issue naming
/// `what` if it does not hold within `timeout`. Returns whether it held.
///
/// Only a check that began after the deadline can decide that the time is up. One that began
/// before may have looked before the condition came to hold and returned long after: a check
/// that runs a process waits for the process to start and for its exit to be seen, which can
/// take seconds while the whole suite shares two cores.
@discardableResult
func eventually(
    _ what: String,
    timeout: Duration = .seconds(20),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var checks = 0
    var longest = Duration.zero
    while true {
        let began = clock.now
        if try await condition() { return true }
        checks += 1
        longest = max(longest, clock.now - began)
        guard began < deadline else {
            Issue.record("timed out after \(timeout) waiting until \(what) (\(checks) checks, the longest took \(longest))", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
