import Testing

/// Waits until `condition` holds, checking every few milliseconds; records an issue naming
/// `what` if it does not hold within `timeout`. Returns whether it held.
@discardableResult
func eventually(
    _ what: String,
    timeout: Duration = .seconds(20),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out after \(timeout) waiting until \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
