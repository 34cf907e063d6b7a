/// The keyed container of ``JSONValueReader``: the members of one JSON object.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The reader whose value is this object (it gives the coding path).
    let reader: JSONValueReader
    let members: [String: JSONValue]

    var codingPath: [any CodingKey] { reader.codingPath }

    /// The keys in the order the wire writes them (by their UTF-8 bytes), whatever the
    /// dictionary's: what decodes from them (a dictionary's first bad entry, an error that
    /// lists them) comes out the same in every process, and as from ``JSONTapeReader``.
    var allKeys: [Key] { members.keys.sorted(by: wireKeyOrder).compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { lookUp(key) != nil }

    /// The member named `key`, if there is one.
    private func lookUp(_ key: Key) -> JSONValue? {
        let name = key.stringValue
        // A struct's object has a handful of members: comparing the key with each (short
        // strings compare in a few instructions) is cheaper than hashing it.
        // Keys compare as Swift strings, as the dictionary's would (canonical equivalence: a
        // key written "\u212a", the Kelvin sign, is the member "K"), so no shortcut by length.
        if members.count <= 8 {
            for (memberName, value) in members where memberName == name {
                return value
            }
            return nil
        }
        return members[name]
    }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = lookUp(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "the object has no member \"\(key.stringValue)\""))
        }
        return value
    }

    /// The member for `key` unless it is missing or null (what `decodeIfPresent` reads).
    private func presentMember(_ key: Key) -> JSONValue? {
        guard let value = lookUp(key) else { return nil }
        if case .null = value { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try reader.readBool(member(key), at: .key(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try reader.readString(member(key), at: .key(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try reader.readDouble(member(key), at: .key(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try reader.readFloat(member(key), at: .key(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader.readInteger(member(key), at: .key(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try reader.readInteger(member(key), at: .key(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try reader.decodeChild(type, from: member(key), at: .key(key))
    }

    // One lookup instead of the three (contains, decodeNil, decode) of the default versions.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try presentMember(key).map { try reader.readBool($0, at: .key(key)) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try presentMember(key).map { try reader.readString($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try presentMember(key).map { try reader.readDouble($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try presentMember(key).map { try reader.readFloat($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentMember(key).map { try reader.readInteger($0, at: .key(key)) } }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try reader.decodeChild(type, from: $0, at: .key(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try reader.child(member(key), at: .key(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try reader.child(member(key), at: .key(key)).unkeyedContainer()
    }

    /// A decoder for the member `super`; null if there is none (as in Foundation).
    func superDecoder() throws -> any Decoder {
        reader.child(members["super"] ?? .null, at: .key(AnyCodingKey("super")))
    }

    /// A decoder for the member `key`; null if there is none (as in Foundation).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        reader.child(members[key.stringValue] ?? .null, at: .key(key))
    }
}

/// The unkeyed container of ``JSONValueReader``: the elements of one JSON array, read in order.
/// A failed decode leaves ``currentIndex`` where it was.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let reader: JSONValueReader
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(reader: JSONValueReader, elements: [JSONValue]) {
        self.reader = reader
        self.elements = elements
    }

    var codingPath: [any CodingKey] { reader.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// Reads the current element with `read` and moves past it.
    private mutating func next<T>(_ type: T.Type, _ read: (JSONValue, CodingPathStep) throws -> T) throws -> T {
        guard !isAtEnd else { throw pastTheEnd(type) }
        let value = try read(elements[currentIndex], .index(currentIndex))
        currentIndex += 1
        return value
    }

    private func pastTheEnd(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(type, .init(
            codingPath: reader.path(to: .index(currentIndex)),
            debugDescription: "\(noElementExplanation) \(currentIndex) (it has \(elements.count))"))
    }

    /// Moves past the current element only if it is null.
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw pastTheEnd(Any?.self) }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { [reader] in try reader.readBool($0, at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { [reader] in try reader.readString($0, at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { [reader] in try reader.readDouble($0, at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { [reader] in try reader.readFloat($0, at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { [reader] in try reader.readInteger($0, at: $1) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let reader = reader
        return try next(type) { value, step in try reader.decodeChild(type, from: value, at: step) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let reader = reader
        return try next(KeyedDecodingContainer<NestedKey>.self) { value, step in try reader.child(value, at: step).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let reader = reader
        return try next((any UnkeyedDecodingContainer).self) { value, step in try reader.child(value, at: step).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        let reader = reader
        return try next((any Decoder).self) { value, step in reader.child(value, at: step) }
    }
}

/// The single-value container of ``JSONValueReader``: the reader's whole value.
struct JSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let reader: JSONValueReader

    var codingPath: [any CodingKey] { reader.codingPath }

    func decodeNil() -> Bool {
        if case .null = reader.value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try reader.readBool(reader.value, at: nil) }
    func decode(_ type: String.Type) throws -> String { try reader.readString(reader.value, at: nil) }
    func decode(_ type: Double.Type) throws -> Double { try reader.readDouble(reader.value, at: nil) }
    func decode(_ type: Float.Type) throws -> Float { try reader.readFloat(reader.value, at: nil) }
    func decode(_ type: Int.Type) throws -> Int { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.readInteger(reader.value, at: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.readInteger(reader.value, at: nil) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The value is this reader's whole value: it decodes itself from the same reader.
        try T(from: reader)
    }
}

/// One step of a coding path: a key, or an array index (kept as a number, and made a
/// `CodingKey` only when the path is asked for, so that reading an array allocates no keys).
enum CodingPathStep {
    case key(any CodingKey)
    /// A key known by its name (a tagged value's case: no `CodingKey` boxed for it until the
    /// path is asked for).
    case name(String)
    case index(Int)

    var key: any CodingKey {
        switch self {
        case let .key(key): return key
        case let .name(name): return AnyCodingKey(name)
        case let .index(index): return AnyCodingKey(intValue: index)!
        }
    }
}
