import Wire
/// The counter (Khipu's, Shohin's and Actomaton's example): one number.
/// JSON: `{"value":3}`.
public struct CounterState: Codable, Sendable, Equatable {
    public var value: Int

    public init(value: Int = 0) {
        self.value = value
    }
}
