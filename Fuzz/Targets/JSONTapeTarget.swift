import Wire

/// `json-tape`: the fast reading of JSON text (``JSONTape``, and ``JSONTapeDecoder`` decoding
/// straight from it, which is what ``WireJSON`` decodes with) against the general one
/// (``JSONParser`` making a ``JSONValue``, and ``JSONValueDecoder`` decoding from that), on any
/// bytes.
///
/// - Syntax: the tape refuses exactly the texts the parser refuses, with an equal
///   ``JSONSyntaxError`` (the same offset and words), and the value of a tape is the parser's
///   value, to the bit (strings by their bytes, doubles by their bit patterns).
/// - Types: for each of the types below, decoding the text gives the same outcome both ways:
///   the same value (compared as its wire JSON, or as a log of what its `init(from:)` read) or
///   the same error, word for word (``describeDecodingFailure(_:droppingPathPrefix:)``, and
///   `==` for a syntax error). The types between them call every method of `Decoder` and of
///   its three containers, with every scalar type, read past an array's end, ask for members
///   that are missing, and name members whose names are canonically equivalent to other
///   spellings (`K` and the kelvin sign U+212A, `é` precomposed and decomposed, `Å` and the
///   angstrom sign U+212B), besides this wire's own messages and its tagged enums
///   (``SingleKeyCoding``).
///
/// Outcomes are compared by their UTF-8 bytes, not as Swift strings (which would take `é`
/// precomposed and decomposed for equal).
public enum JSONTapeTarget: FuzzTarget {
    public static let name = "json-tape"
    public static let summary = "JSONTapeDecoder reads every text as JSONValueDecoder reads JSONParser's value of it: the same value or the same error"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let parsed = Result { () throws(JSONSyntaxError) in try JSONParser().parse(input) }
        let taped = Result { () throws(JSONSyntaxError) in try JSONTape(input) }
        switch (parsed, taped) {
        case let (.failure(general), .failure(tape)):
            guard general == tape else {
                throw FuzzFinding("""
                    the parser and the tape refuse \(FindingText.text(input)) differently:
                      parser: \(general.offset): \(general.message)
                      tape:   \(tape.offset): \(tape.message)
                    """)
            }
            // The decoder's refusal is that same error, whatever the type.
            switch Result(catching: { try JSONTapeDecoder.decode(JSONValue.self, from: input) }) {
            case let .success(value):
                throw FuzzFinding("the tape decoder reads \(FindingText.json(value)) from \(FindingText.text(input)), which the parser refuses (\(general))")
            case let .failure(error):
                guard let syntax = error as? JSONSyntaxError, syntax == general else {
                    throw FuzzFinding("the tape decoder refuses \(FindingText.text(input)) with \(describeDecodingFailure(error)), the parser with \(general)")
                }
            }
            return
        case let (.success(general), .success(tape)):
            let value = tape.value
            guard value == general, identical(value, general) else {
                throw FuzzFinding("""
                    the parser and the tape read \(FindingText.text(input)) as different values:
                      parser: \(canonical(general))
                      tape:   \(canonical(value))
                    """)
            }
            try compareDecoding(input, parsed: general)
        case let (.failure(general), .success(tape)):
            throw FuzzFinding("the parser refuses \(FindingText.text(input)) (\(general)) where the tape reads \(canonical(tape.value))")
        case let (.success(general), .failure(tape)):
            throw FuzzFinding("the tape refuses \(FindingText.text(input)) (\(tape)) where the parser reads \(canonical(general))")
        }
    }

    /// Decodes `input` as each of the types both ways, and compares.
    private static func compareDecoding(_ input: [UInt8], parsed: JSONValue) throws(FuzzFinding) {
        try compare(JSONValue.self, "JSONValue", input, parsed) { canonical($0) }
        try compare(Scalars.self, "Scalars", input, parsed) { try WireJSON.string($0) }
        try compare([Int?].self, "[Int?]", input, parsed) { try WireJSON.string($0) }
        try compare([String: Int].self, "[String: Int]", input, parsed) { try WireJSON.string($0) }
        try compare(UnkeyedWalk.self, "UnkeyedWalk", input, parsed) { $0.log.joined(separator: "\n") }
        try compare(KeyedWalk.self, "KeyedWalk", input, parsed) { $0.log.joined(separator: "\n") }
        try compare(Command.self, "Command", input, parsed) { try WireJSON.string($0) }
        try compare([Command].self, "[Command]", input, parsed) { try WireJSON.string($0) }
        try compare(ClientMessage<JSONValue>.self, "ClientMessage<JSONValue>", input, parsed) { try WireJSON.string($0) }
        try compare(ServerMessage<JSONValue>.self, "ServerMessage<JSONValue>", input, parsed) { try WireJSON.string($0) }
    }

    /// What one decoding came to: the value written by `written`, or the error's line.
    private static func outcome<T>(_ read: () throws -> T, written: (T) throws -> String) -> String {
        let value: T
        do {
            value = try read()
        } catch {
            return "error " + describeDecodingFailure(error)
        }
        do {
            return "value " + (try written(value))
        } catch {
            return "unwritable value: " + describeDecodingFailure(error)
        }
    }

    /// Decodes `input` as a `T` both ways and throws if the outcomes differ.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - name: its name, for the finding (a file-private type's own name carries a
    ///     discriminator when the fuzzer prints it).
    ///   - input: the text.
    ///   - parsed: what ``JSONParser`` read from it.
    ///   - written: how a value of the type is compared: as this text.
    private static func compare<T: Decodable>(_ type: T.Type, _ name: String, _ input: [UInt8], _ parsed: JSONValue, written: (T) throws -> String) throws(FuzzFinding) {
        let general = outcome({ try JSONValueDecoder().decode(type, from: parsed) }, written: written)
        let tape = outcome({ try JSONTapeDecoder.decode(type, from: input) }, written: written)
        guard general.utf8.elementsEqual(tape.utf8) else {
            throw FuzzFinding("""
                the decoders read \(FindingText.text(input)) as a \(name) differently:
                  value decoder: \(general)
                  tape decoder:  \(tape)
                """)
        }
    }

    // MARK: Comparing values exactly

    /// Whether two values are the same to the bit: strings (keys too) by their UTF-8 bytes,
    /// doubles by their bit patterns (`==` takes `-0.0` for `0.0`, and `é` for `e\u0301`).
    static func identical(_ one: JSONValue, _ other: JSONValue) -> Bool {
        switch (one, other) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.integer(x), .integer(y)): return x == y
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.string(x), .string(y)): return x.utf8.elementsEqual(y.utf8)
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy(identical)
        case let (.object(x), .object(y)):
            guard x.count == y.count else { return false }
            return zip(byteOrder(x), byteOrder(y)).allSatisfy { first, second in
                first.key.utf8.elementsEqual(second.key.utf8) && identical(first.value, second.value)
            }
        default: return false
        }
    }

    /// An object's members in the order of their keys' UTF-8 bytes.
    private static func byteOrder(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// A value as text that tells apart what ``identical(_:_:)`` tells apart: an integer from a
    /// double (`1` and `1.0d`), `-0.0d` from `0.0d`, members in the order of their keys' bytes.
    static func canonical(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case let .bool(bool): return bool ? "true" : "false"
        case let .integer(integer): return String(integer)
        case let .double(double): return "\(double)d"
        case let .string(string): return quoted(string)
        case let .array(elements): return "[" + elements.map(canonical).joined(separator: ",") + "]"
        case let .object(members):
            return "{" + byteOrder(members).map { quoted($0.key) + ":" + canonical($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// A string in quotes, its quotes and backslashes escaped (the rest as it is).
    private static func quoted(_ string: String) -> String {
        var text = "\""
        for scalar in string.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { text.unicodeScalars.append("\\") }
            text.unicodeScalars.append(scalar)
        }
        text.unicodeScalars.append("\"")
        return text
    }
}

// MARK: The types decoded both ways

/// What `body` gives, or its error's line: a step of a walk that goes on after a failure.
fileprivate func attempt(_ body: () throws -> String) -> String {
    do {
        return try body()
    } catch {
        return "error " + describeDecodingFailure(error)
    }
}

/// A coding path with both the string and the integer of each key.
fileprivate func pathText(_ path: [any CodingKey]) -> String {
    "/" + path.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }.joined(separator: "/")
}

/// A value of a walk's log, as ``JSONTapeTarget/canonical(_:)`` writes it.
fileprivate func text(_ value: JSONValue) -> String {
    JSONTapeTarget.canonical(value)
}

/// Every scalar type as an optional field (the synthesized `decodeIfPresent` of each), a list
/// with nulls, a dictionary, a JSON value, and fields whose names have canonically equivalent
/// spellings of other bytes (or of other lengths).
fileprivate struct Scalars: Codable {
    var b: Bool?
    var s: String?
    var d: Double?
    var f: Float?
    var i: Int?
    var i8: Int8?
    var i16: Int16?
    var i32: Int32?
    var i64: Int64?
    var u: UInt?
    var u8: UInt8?
    var u16: UInt16?
    var u32: UInt32?
    var u64: UInt64?
    var list: [Int?]?
    var map: [String: Int]?
    var any: JSONValue?
    var kelvin: Int?
    var acute: String?
    var angstrom: Bool?

    enum CodingKeys: String, CodingKey {
        case b, s, d, f, i, i8, i16, i32, i64, u, u8, u16, u32, u64, list, map, any
        case kelvin = "K", acute = "é", angstrom = "Å"
    }
}

/// An array read element by element with every method of an unkeyed container, each step
/// logged with where the container then is; a step that fails is logged and the walk goes on
/// (a failed read does not move the container), up to reading past the end.
fileprivate struct UnkeyedWalk: Decodable {
    var log: [String] = []

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        log.append("count \(container.count ?? -1) at \(pathText(container.codingPath))")
        func note(_ step: String) {
            log.append(step + " @\(container.currentIndex)" + (container.isAtEnd ? " end" : ""))
        }
        note(attempt { String(try container.decode(Bool.self)) })
        note(attempt { try container.decode(String.self) })
        note(attempt { String(try container.decode(Double.self)) })
        note(attempt { String(try container.decode(Float.self)) })
        note(attempt { String(try container.decode(Int.self)) })
        note(attempt { String(try container.decode(Int8.self)) })
        note(attempt { String(try container.decode(Int16.self)) })
        note(attempt { String(try container.decode(Int32.self)) })
        note(attempt { String(try container.decode(Int64.self)) })
        note(attempt { String(try container.decode(UInt.self)) })
        note(attempt { String(try container.decode(UInt8.self)) })
        note(attempt { String(try container.decode(UInt16.self)) })
        note(attempt { String(try container.decode(UInt32.self)) })
        note(attempt { String(try container.decode(UInt64.self)) })
        note(attempt { "nil " + String(try container.decodeNil()) })
        note(attempt {
            var nested = try container.nestedUnkeyedContainer()
            var step = "unkeyed \(nested.count ?? -1) at \(pathText(nested.codingPath))"
            step += " " + attempt { try nested.decode(String.self) }
            step += " " + attempt { "nil " + String(try nested.decodeNil()) }
            step += " " + attempt { String(try nested.decode(Int.self)) }
            step += " " + attempt { text(try nested.decode(JSONValue.self)) }
            return step + " @\(nested.currentIndex)" + (nested.isAtEnd ? " end" : "")
        })
        note(attempt {
            let nested = try container.nestedContainer(keyedBy: AnyCodingKey.self)
            let keys = nested.allKeys
            var step = "keyed at \(pathText(nested.codingPath)) keys " + keys.map(\.stringValue).joined(separator: ",")
            if let first = keys.first {
                step += " " + attempt { String(try nested.decode(Int.self, forKey: first)) }
                step += " " + attempt { try nested.decodeIfPresent(String.self, forKey: first) ?? "none" }
            }
            step += " " + attempt { String(try nested.decode(Bool.self, forKey: AnyCodingKey("K"))) }
            return step
        })
        note(attempt {
            let parent = try container.superDecoder()
            return "super at \(pathText(parent.codingPath)) " + attempt { text(try JSONValue(from: parent)) }
                + " " + attempt { String(try parent.singleValueContainer().decode(UInt16.self)) }
        })
        note(attempt { text(try container.decode(JSONValue.self)) })
        note(attempt { try container.decodeIfPresent(Int.self).map { String($0) } ?? "none" })
        note(attempt { try container.decodeIfPresent(String.self) ?? "none" })
        note(attempt { try WireJSON.string(try container.decode([Int?].self)) })
        note(attempt { try WireJSON.string(try container.decode([String: Int].self)) })
        note(attempt { try WireJSON.string(try container.decode(Command.self)) })
        // The rest, then past the end.
        for _ in 0 ..< (container.count ?? 0) where !container.isAtEnd {
            note(attempt { try container.decodeNil() ? "null" : text(try container.decode(JSONValue.self)) })
        }
        note(attempt { String(try container.decode(Int.self)) })
        note(attempt { "nil " + String(try container.decodeNil()) })
        note(attempt { text(try container.decode(JSONValue.self)) })
        note(attempt { "unkeyed \(try container.nestedUnkeyedContainer().count ?? -1)" })
        note(attempt { "keyed \(try container.nestedContainer(keyedBy: AnyCodingKey.self).allKeys.count)" })
        note(attempt { pathText(try container.superDecoder().codingPath) })
    }
}

/// An object read with every method of a keyed container: its keys, every named member
/// looked for, decoded as each scalar type, as nested containers and through super decoders;
/// then every member by its own name. Each step is logged; one that fails is logged and the
/// walk goes on.
fileprivate struct KeyedWalk: Decodable {
    var log: [String] = []

    enum Keys: String, CodingKey, CaseIterable {
        case b, s, d, f, i, i8, i16, i32, i64, u, u8, u16, u32, u64, list, object, any
        case parent = "super", kelvin = "K", acute = "é", angstrom = "Å"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        log.append("at \(pathText(container.codingPath)) keys " + container.allKeys.map(\.stringValue).joined(separator: ","))
        for key in Keys.allCases {
            log.append("\(key.stringValue): \(container.contains(key)) " + attempt { "nil " + String(try container.decodeNil(forKey: key)) })
        }
        log.append(attempt { String(try container.decode(Bool.self, forKey: .b)) })
        log.append(attempt { try container.decode(String.self, forKey: .s) })
        log.append(attempt { String(try container.decode(Double.self, forKey: .d)) })
        log.append(attempt { String(try container.decode(Float.self, forKey: .f)) })
        log.append(attempt { String(try container.decode(Int.self, forKey: .i)) })
        log.append(attempt { String(try container.decode(Int8.self, forKey: .i8)) })
        log.append(attempt { String(try container.decode(Int16.self, forKey: .i16)) })
        log.append(attempt { String(try container.decode(Int32.self, forKey: .i32)) })
        log.append(attempt { String(try container.decode(Int64.self, forKey: .i64)) })
        log.append(attempt { String(try container.decode(UInt.self, forKey: .u)) })
        log.append(attempt { String(try container.decode(UInt8.self, forKey: .u8)) })
        log.append(attempt { String(try container.decode(UInt16.self, forKey: .u16)) })
        log.append(attempt { String(try container.decode(UInt32.self, forKey: .u32)) })
        log.append(attempt { String(try container.decode(UInt64.self, forKey: .u64)) })
        log.append(attempt { String(try container.decode(Int.self, forKey: .kelvin)) })
        log.append(attempt { try container.decode(String.self, forKey: .acute) })
        log.append(attempt { String(try container.decode(Bool.self, forKey: .angstrom)) })
        log.append(attempt { text(try container.decode(JSONValue.self, forKey: .any)) })
        log.append(attempt { try container.decodeIfPresent([Int?].self, forKey: .list).map { try WireJSON.string($0) } ?? "none" })
        log.append(attempt { try container.decodeIfPresent(Double.self, forKey: .kelvin).map { String($0) } ?? "none" })
        log.append(attempt { try container.decodeIfPresent(Command.self, forKey: .object).map { try WireJSON.string($0) } ?? "none" })
        log.append(attempt {
            let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .object)
            var step = "object at \(pathText(nested.codingPath)) keys " + nested.allKeys.map(\.stringValue).joined(separator: ",")
            step += " " + attempt { String(try nested.decode(Int.self, forKey: .i)) }
            step += " " + attempt { try nested.decodeIfPresent(String.self, forKey: .acute) ?? "none" }
            step += " " + attempt { pathText(try nested.superDecoder().codingPath) }
            return step
        })
        log.append(attempt {
            var nested = try container.nestedUnkeyedContainer(forKey: .list)
            var step = "list \(nested.count ?? -1) at \(pathText(nested.codingPath))"
            step += " " + attempt { String(try nested.decode(Int.self)) }
            step += " " + attempt { "nil " + String(try nested.decodeNil()) }
            return step + " @\(nested.currentIndex)"
        })
        log.append(attempt { "list as object " + (try container.nestedContainer(keyedBy: Keys.self, forKey: .list).allKeys.map(\.stringValue).joined(separator: ",")) })
        log.append(attempt { "object as list \(try container.nestedUnkeyedContainer(forKey: .object).count ?? -1)" })
        log.append(attempt { Self.superText(try container.superDecoder()) })
        for key in [Keys.kelvin, .acute, .object, .list, .s] {
            log.append(attempt { Self.superText(try container.superDecoder(forKey: key)) })
        }
        // Every member by its own name.
        let members = try decoder.container(keyedBy: AnyCodingKey.self)
        for key in members.allKeys.prefix(24) {
            var step = "member \(JSONTapeTarget.canonical(.string(key.stringValue))): \(members.contains(key))"
            step += " " + attempt { "nil " + String(try members.decodeNil(forKey: key)) }
            step += " " + attempt { text(try members.decode(JSONValue.self, forKey: key)) }
            step += " " + attempt { String(try members.decode(Int32.self, forKey: key)) }
            log.append(step)
        }
    }

    /// What a super decoder reads, by each of its three containers.
    private static func superText(_ decoder: any Decoder) -> String {
        var step = "super at \(pathText(decoder.codingPath))"
        step += " " + attempt { text(try JSONValue(from: decoder)) }
        step += " " + attempt { "nil " + String(try decoder.singleValueContainer().decodeNil()) }
        step += " " + attempt { try decoder.singleValueContainer().decode(String.self) }
        step += " " + attempt { String(try decoder.singleValueContainer().decode(Int8.self)) }
        step += " " + attempt { try WireJSON.string(try decoder.singleValueContainer().decode([Int?].self)) }
        step += " " + attempt { "keys " + (try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue).joined(separator: ",")) }
        step += " " + attempt { "count \(try decoder.unkeyedContainer().count ?? -1)" }
        return step
    }
}

/// An externally tagged enum as this wire writes its actions: a bare string for a case
/// without a payload, else an object with one key, the case's name.
fileprivate indirect enum Command: Codable {
    case reset
    case add(Add)
    case set(Int)
    case list([String])
    case nest(Command)
    case café(JSONValue)

    struct Add: Codable {
        var text: String
        var count: UInt8?
    }

    /// A payload of no members (`{}`, or anything an object's container reads).
    struct Empty: Codable {}

    static let names = ["reset", "add", "set", "list", "nest", "café"]

    init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "command", names: Self.names)
        switch tag.name {
        case "reset":
            _ = try tag.payload.map { try Empty(from: $0) }
            self = .reset
        case "add": self = .add(try tag.payload.decode(Add.self, kind: "add"))
        case "set": self = .set(try tag.payload.decode(Int.self, kind: "set"))
        case "list": self = .list(try tag.payload.decode([String].self, kind: "list"))
        case "nest": self = .nest(try tag.payload.decode(Command.self, kind: "nest"))
        default: self = .café(try tag.payload.decode(JSONValue.self, kind: "café"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .reset: try SingleKeyCoding.encode("reset", to: encoder)
        case let .add(add): try SingleKeyCoding.encode("add", add, to: encoder)
        case let .set(value): try SingleKeyCoding.encode("set", value, to: encoder)
        case let .list(list): try SingleKeyCoding.encode("list", list, to: encoder)
        case let .nest(command): try SingleKeyCoding.encode("nest", command, to: encoder)
        case let .café(value): try SingleKeyCoding.encode("café", value, to: encoder)
        }
    }
}
