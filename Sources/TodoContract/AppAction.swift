import Wire
/// Every action of the reference app: the features' actions, composed.
///
/// On the wire the to-do actions appear under their own names (`{"add":{"text":"buy milk"}}` is
/// `.todo(.add(text: "buy milk"))`), the counter's and the timer's under their feature's name
/// (`{"counter":"increment"}`, `{"timer":{"start":{"id":3}}}`), and `pick` on its own
/// (`{"pick":{}}` is `.timer(.pick)`).
public enum AppAction: Sendable, Equatable {
    case todo(TodoAction)
    case counter(CounterAction)
    case timer(TimerAction)

    /// Every name an action can start with.
    public static let names = TodoAction.names + ["counter", "timer", "pick"]

    /// Actions only the core itself may send; it refuses them from clients.
    public var isInternal: Bool {
        if case let .timer(action) = self { return action.isInternal }
        return false
    }
}

extension AppAction: Codable {
    public init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "action", names: Self.names)
        switch tag.name {
        case "counter": self = .counter(try tag.decode(CounterAction.self, kind: "counter"))
        case "timer": self = .timer(try tag.decode(TimerAction.self, kind: "timer"))
        case "pick": self = .timer(.pick)
        default: self = .todo(try TodoAction(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .todo(action): try action.encode(to: encoder)
        case let .counter(action): try SingleKeyCoding.encode("counter", action, to: encoder)
        case .timer(.pick): try SingleKeyCoding.encode("pick", to: encoder)
        case let .timer(action): try SingleKeyCoding.encode("timer", action, to: encoder)
        }
    }
}
