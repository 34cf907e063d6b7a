/// Any JSON document, as a value.
///
/// The wire carries typed messages, but renditions are described at the JSON level (a snapshot
/// of the state, or an RFC 6902 patch of its JSON), so that the runtime can diff any app's state
/// without knowing its types, and a client in any language can apply the change with a stock
/// JSON Patch library.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// The JSON form of any encodable value (what it would look like on the wire).
    public init(encoding value: some Encodable) throws {
        self = try WireJSON.decode(JSONValue.self, from: WireJSON.encode(value))
    }

    /// Decodes a typed value from this JSON.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try WireJSON.decode(type, from: WireJSON.encode(self))
    }

    /// The members of an object, or nil for any other kind of value.
    public var objectValue: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }
}
