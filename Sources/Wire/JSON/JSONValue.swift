/// Any JSON document, as a value.
///
/// The wire carries typed messages, but renditions are described at the JSON level (a snapshot
/// of the state, or an RFC 6902 patch of its JSON), so that the runtime can diff any app's state
/// without knowing its types, and a client in any language can apply the change with a stock
/// JSON Patch library.
///
/// Text becomes a value with ``JSONParser`` and a value text with ``JSONSerializer``; typed
/// values go to and from it with ``init(encoding:)`` and ``decode(as:)``.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits 64 bits (`42`, `-7`).
    case integer(Int64)
    /// Any other number (`1.5`, `1e3`, `1.0`, an integer beyond 64 bits), as the nearest double.
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// An object's members; a key appears once (the parser refuses text that repeats one).
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    /// Takes the value as it is from this wire's decoder; any other decoder is asked for each
    /// kind of value in turn.
    public init(from decoder: any Decoder) throws {
        if let reader = JSONValueReader.of(decoder) {
            self = reader.value
            return
        }
        if let reader = JSONTapeReader.of(decoder) {
            self = reader.value
            return
        }
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

    /// Hands the value over as it is to this wire's encoder; any other encoder gets it piece
    /// by piece.
    public func encode(to encoder: any Encoder) throws {
        if let arenaEncoder = encoder as? ArenaEncoder {
            arenaEncoder.arena.set(.value(self), at: arenaEncoder.slot)
            return
        }
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
    /// The JSON form of any encodable value: what it looks like on the wire, as a value (built
    /// directly, not through text; see ``JSONValueEncoder``).
    ///
    /// - Parameters:
    ///   - value: the value to encode.
    public init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// Decodes a typed value from this JSON (directly, not through text; see ``JSONValueDecoder``).
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: self)
    }

    /// The members of an object, or nil for any other kind of value.
    public var objectValue: [String: JSONValue]? {
        if case let .object(members) = self { return members }
        return nil
    }
}
