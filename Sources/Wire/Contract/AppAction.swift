/// Every action of the reference app: the features' actions, composed.
///
/// On the wire each feature's actions appear under their own names, without a wrapper:
/// `{"add":{"text":"buy milk"}}` is `.todo(.add(text: "buy milk"))`.
public enum AppAction: Sendable, Equatable {
    case todo(TodoAction)

    /// Every action name, across features.
    public static var names: [String] { TodoAction.names }
}

extension AppAction: Codable {
    public init(from decoder: any Decoder) throws {
        self = .todo(try TodoAction(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .todo(action): try action.encode(to: encoder)
        }
    }
}
