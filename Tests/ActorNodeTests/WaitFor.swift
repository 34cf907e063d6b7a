import Testing

/// Waits until `condition` holds, checking every 2 ms, for at most 20 s; records an issue
/// naming `what` if it never does.
/// - Parameters:
///   - what: what is waited for, for the issue.
///   - condition: the condition.
func waitFor(_ what: String, _ condition: () async -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(20)
    while !(await condition()) {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what)")
            return
        }
        try? await Task.sleep(for: .milliseconds(2))
    }
}
