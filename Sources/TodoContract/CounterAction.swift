import Wire
/// What a shell can ask of the counter.
///
/// JSON, under the `counter` key of an action: `{"counter":{"increment":{}}}` (or
/// `{"counter":"increment"}`), `decrement`, `reset`, `randomize`, and
/// `{"counter":{"set":{"value":5}}}`.
public enum CounterAction: Sendable, Equatable {
    case increment
    case decrement
    case reset
    case set(value: Int)
    /// Sets the counter to a random number from 0 to 10; the number arrives through an effect,
    /// as a `set` action.
    case randomize

    public static let names = ["increment", "decrement", "reset", "set", "randomize"]
}

extension CounterAction: Codable {
    private struct Value: Codable { var value: Int }

    public init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "counter action", names: Self.names)
        switch tag.name {
        case "increment": self = .increment
        case "decrement": self = .decrement
        case "reset": self = .reset
        case "randomize": self = .randomize
        default: self = .set(value: try tag.decode(Value.self, kind: "set").value)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .increment: try SingleKeyCoding.encode("increment", to: encoder)
        case .decrement: try SingleKeyCoding.encode("decrement", to: encoder)
        case .reset: try SingleKeyCoding.encode("reset", to: encoder)
        case .randomize: try SingleKeyCoding.encode("randomize", to: encoder)
        case let .set(value): try SingleKeyCoding.encode("set", Value(value: value), to: encoder)
        }
    }
}
