/// A disagreement a fuzz target found: two readers that read the same bytes two ways, or a
/// property that does not hold (a value that does not survive its round trip, say). Thrown by
/// ``FuzzTarget/check(_:)``; the fuzzer's entry prints it and aborts, so that libFuzzer keeps
/// the input.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one or a few lines, with the values that differ.
    public var description: String

    /// - Parameter description: what went wrong, with the values that differ.
    public init(_ description: String) {
        self.description = description
    }
}
