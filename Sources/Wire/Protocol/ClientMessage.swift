/// A frame from a client to the core: `{"hello":{...}}`, `{"action":{...}}`, `{"resync":{...}}`,
/// `{"query":{...}}` or `{"bye":{...}}`.
package enum ClientMessage<Action: Codable & Sendable>: Codable, Sendable {
    case hello(Hello)
    case action(ActionRequest<Action>)
    case resync(Resync)
    case query(Query)
    case bye(Bye)

    static var names: [String] { ClientMessageNames.all }

    package init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "message", names: Self.names)
        switch tag.name {
        case "hello": self = .hello(try tag.decode(Hello.self, kind: "hello"))
        case "action": self = .action(try tag.decode(ActionRequest<Action>.self, kind: "action"))
        case "resync": self = .resync(try tag.decode(Resync.self, kind: "resync"))
        case "query": self = .query(try tag.decode(Query.self, kind: "query"))
        default: self = .bye(try tag.payload.map { try Bye(from: $0) } ?? Bye())
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case let .hello(hello): try SingleKeyCoding.encode("hello", hello, to: encoder)
        case let .action(request): try SingleKeyCoding.encode("action", request, to: encoder)
        case let .resync(resync): try SingleKeyCoding.encode("resync", resync, to: encoder)
        case let .query(query): try SingleKeyCoding.encode("query", query, to: encoder)
        case let .bye(bye): try SingleKeyCoding.encode("bye", bye, to: encoder)
        }
    }
}

extension ClientMessage: Equatable where Action: Equatable {}

/// The names of client messages, made once (a generic type cannot have a stored static).
private enum ClientMessageNames {
    static let all = ["hello", "action", "resync", "query", "bye"]
}
