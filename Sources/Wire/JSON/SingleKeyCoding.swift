/// A coding key made of any string: for objects whose keys are data (a message's or an
/// action's name) rather than fixed field names.
package struct AnyCodingKey: CodingKey, Hashable, Sendable {
    package var stringValue: String
    package var intValue: Int?

    package init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    package init?(stringValue: String) {
        self.init(stringValue)
    }

    package init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Helpers for externally tagged enums, the readable shape used for every message and action:
/// an object with exactly one key, the case's name, whose value is the case's payload,
/// e.g. `{"add":{"text":"buy milk"}}`. A payload-less case may also be written as a bare
/// string (`"clear"`).
public enum SingleKeyCoding {
    /// The case name and (unless it was a bare string) a decoder for its payload.
    public struct Tag {
        public let name: String
        /// The payload's reader as it is: this wire's tape reader is kept as itself and made
        /// an `any Decoder` once, when the payload is decoded. (Kept as an optional
        /// existential, it was copied and destroyed through the runtime's value witnesses at
        /// each step, about 300 instructions of every action the core read.)
        let source: PayloadSource

        enum PayloadSource {
            case none
            case tape(JSONTapeReader)
            case decoder(any Decoder)
        }

        /// A tag whose payload `payload` reads, or with none (a bare string).
        public init(name: String, payload: (any Decoder)?) {
            self.name = name
            source = payload.map { .decoder($0) } ?? .none
        }

        init(name: String, tape reader: JSONTapeReader) {
            self.name = name
            source = .tape(reader)
        }

        /// A decoder for the payload; nil when the value was a bare string.
        public var payload: (any Decoder)? {
            switch source {
            case .none: nil
            case let .tape(reader): reader
            case let .decoder(decoder): decoder
            }
        }

        /// Decodes the payload as a `type`; a bare string has none, which is an error.
        /// - Parameters:
        ///   - type: the payload's type.
        ///   - kind: what the payload is, for the error (`"add"`).
        public func decode<T: Decodable>(_ type: T.Type, kind: String) throws -> T {
            switch source {
            case let .tape(reader): return try T(from: reader)
            case let .decoder(decoder): return try T(from: decoder)
            case .none: throw SingleKeyCoding.missingPayload(kind: kind)
            }
        }
    }

    /// Reads the tag of an externally tagged value. `kind` and `names` only shape the error
    /// message ("an action: one of add, clear, ...").
    public static func decodeTag(from decoder: any Decoder, kind: String, names: [String]) throws -> Tag {
        // This wire's decoder: read the value itself. Every message and action is read this
        // way, and the general way (a container asked for its keys) costs more than the rest
        // of decoding a small message. Anything but the two good shapes goes the general way,
        // which says what is wrong. (Apart, so that the way every action takes does not pay
        // for setting up the other's.)
        if let reader = JSONTapeReader.of(decoder), let tag = reader.tag(among: names) { return tag }
        return try decodeTagGenerally(from: decoder, kind: kind, names: names)
    }

    @inline(never)
    private static func decodeTagGenerally(from decoder: any Decoder, kind: String, names: [String]) throws -> Tag {
        if JSONTapeReader.of(decoder) != nil {
            // A tape reader in neither good shape: the general way below.
        } else if let reader = JSONValueReader.of(decoder) {
            switch reader.value {
            case let .string(name) where names.contains(name):
                return Tag(name: name, payload: nil)
            case let .object(members) where members.count == 1:
                if let (name, payload) = members.first, names.contains(name) {
                    return Tag(name: name, payload: reader.child(payload, at: .name(name)))
                }
            default:
                break
            }
        }
        if let name = bareString(in: decoder) {
            guard names.contains(name) else {
                throw unknown(name, kind: kind, names: names, at: decoder.codingPath)
            }
            return Tag(name: name, payload: nil)
        }
        let container: KeyedDecodingContainer<AnyCodingKey>
        do {
            container = try decoder.container(keyedBy: AnyCodingKey.self)
        } catch {
            throw DecodingError.typeMismatch([String: String].self, .init(
                codingPath: decoder.codingPath,
                debugDescription: "expected \(kind) as an object with one key (one of \(names.joined(separator: ", ")))"))
        }
        let keys = container.allKeys
        guard keys.count == 1, let key = keys.first else {
            let found = keys.isEmpty ? "none" : keys.prefix(8).map { excerpt($0.stringValue) }.sorted().joined(separator: ", ") + (keys.count > 8 ? ", …" : "")
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "expected \(kind) as an object with exactly one key (one of \(names.joined(separator: ", "))); found keys: \(found)"))
        }
        guard names.contains(key.stringValue) else {
            throw unknown(key.stringValue, kind: kind, names: names, at: decoder.codingPath)
        }
        return Tag(name: key.stringValue, payload: try container.superDecoder(forKey: key))
    }

    /// The value as a string, if it is one. This wire's decoder is looked at directly: asking
    /// any decoder for a string that is not there makes it build an error (a coding path, a
    /// message) only to be thrown away, and every tagged value that is not a bare string
    /// would pay for one.
    static func bareString(in decoder: any Decoder) -> String? {
        if let reader = JSONTapeReader.of(decoder) {
            return reader.kind == .string ? reader.tape.string(at: reader.index) : nil
        }
        if let reader = JSONValueReader.of(decoder) {
            guard case let .string(string) = reader.value else { return nil }
            return string
        }
        return try? decoder.singleValueContainer().decode(String.self)
    }

    /// The one key of an object that has exactly one, or nil for any other value.
    static func singleKey(in decoder: any Decoder) -> String? {
        if let reader = JSONTapeReader.of(decoder) {
            guard reader.kind == .object, reader.tape.entries[reader.index].second == 1 else { return nil }
            return reader.tape.string(at: reader.index + 1)
        }
        if let reader = JSONValueReader.of(decoder) {
            guard case let .object(members) = reader.value, members.count == 1 else { return nil }
            return members.first?.key
        }
        guard let container = try? decoder.container(keyedBy: AnyCodingKey.self), container.allKeys.count == 1 else { return nil }
        return container.allKeys.first?.stringValue
    }

    /// Writes `{name: payload}`.
    public static func encode(_ name: String, _ payload: some Encodable, to encoder: any Encoder) throws {
        // This wire's encoder: the member goes straight into its arena. (A first
        // `KeyedEncodingContainer<AnyCodingKey>` in a process has the runtime search the
        // binary's conformances for `CodingKey`: a tenth of a one-shot `send`.)
        if let arenaEncoder = encoder as? ArenaEncoder {
            arenaEncoder.arena.openObject(at: arenaEncoder.slot)
            let slot = arenaEncoder.arena.append(.empty, key: name, to: arenaEncoder.slot)
            try payload.encode(to: ArenaEncoder(arena: arenaEncoder.arena, slot: slot))
            return
        }
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(payload, forKey: AnyCodingKey(name))
    }

    /// Writes `{name: {}}` for a case without a payload.
    public static func encode(_ name: String, to encoder: any Encoder) throws {
        if let arenaEncoder = encoder as? ArenaEncoder {
            arenaEncoder.arena.openObject(at: arenaEncoder.slot)
            _ = arenaEncoder.arena.append(.object(first: -1, last: -1, count: 0), key: name, to: arenaEncoder.slot)
            return
        }
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        _ = container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey(name))
    }

    private static func unknown(_ name: String, kind: String, names: [String], at path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(.init(
            codingPath: path,
            debugDescription: "unknown \(kind) '\(excerpt(name))' (expected one of \(names.joined(separator: ", ")))"))
    }

    /// A name from a peer as it may be quoted in an error: at most 64 bytes of it, on one line
    /// (control characters and line separators written as JSON's `\u000a`, so that the error
    /// stays the one readable line ``describeDecodingFailure(_:droppingPathPrefix:)`` promises).
    private static func excerpt(_ name: String) -> String {
        var excerpt = name
        if name.utf8.count > 64 {
            var end = name.utf8.index(name.utf8.startIndex, offsetBy: 64)
            while end > name.utf8.startIndex, name.utf8[end] & 0xc0 == 0x80 { end = name.utf8.index(before: end) }
            excerpt = String(String.UnicodeScalarView(name.unicodeScalars[..<end])) + "…"
        }
        guard excerpt.unicodeScalars.contains(where: breaksTheLine) else { return excerpt }
        var escaped = ""
        for scalar in excerpt.unicodeScalars {
            if breaksTheLine(scalar) {
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// C0 and C1 controls, DEL, and the line and paragraph separators.
    private static func breaksTheLine(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F ... 0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

extension SingleKeyCoding {
    /// The error for a case that needs a payload written as a bare string.
    static func missingPayload(kind: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(
            codingPath: [], debugDescription: "\(kind) needs a payload object, not a bare string"))
    }
}

extension Optional where Wrapped == any Decoder {
    /// Decodes a payload from a tag's decoder; a bare string has none, which is an error.
    /// (``SingleKeyCoding/Tag/decode(_:kind:)`` does the same without making the decoder an
    /// optional existential first.)
    public func decode<T: Decodable>(_ type: T.Type, kind: String) throws -> T {
        guard let decoder = self else { throw SingleKeyCoding.missingPayload(kind: kind) }
        return try T(from: decoder)
    }
}
