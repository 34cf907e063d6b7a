/// The keyed container of ``ArenaEncoder``: members appended to an object of the arena.
/// Scalars are stored directly; anything else encodes itself into a new member's slot.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let arena: EncodingArena
    /// The slot of the object.
    let object: Int32

    var codingPath: [any CodingKey] { arena.codingPath(of: object) }

    private func put(_ content: EncodingArena.Content, _ key: Key) {
        arena.append(content, key: key.stringValue, to: object)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.value(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.value(.bool(value)), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.value(.string(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { put(try ScalarEncoding.double(value, path: { codingPath + [key] }), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { put(try ScalarEncoding.float(value, path: { codingPath + [key] }), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.value(.integer(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.value(.integer(Int64(value))), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(try ScalarEncoding.integer(value, path: { codingPath + [key] }), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(try ScalarEncoding.integer(value, path: { codingPath + [key] }), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let slot = arena.append(.empty, key: key.stringValue, to: object)
        try value.encode(to: ArenaEncoder(arena: arena, slot: slot))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let slot = arena.append(.object(first: -1, last: -1, count: 0), key: key.stringValue, to: object)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(arena: arena, object: slot))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let slot = arena.append(.array(first: -1, last: -1, count: 0), key: key.stringValue, to: object)
        return JSONUnkeyedEncodingContainer(arena: arena, array: slot)
    }

    /// An encoder for the member `super`.
    mutating func superEncoder() -> any Encoder {
        ArenaEncoder(arena: arena, slot: arena.append(.empty, key: "super", to: object))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ArenaEncoder(arena: arena, slot: arena.append(.empty, key: key.stringValue, to: object))
    }
}

/// The unkeyed container of ``ArenaEncoder``: elements appended to an array of the arena.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let arena: EncodingArena
    /// The slot of the array.
    let array: Int32

    var codingPath: [any CodingKey] { arena.codingPath(of: array) }
    var count: Int { arena.count(of: array) }

    /// The path of the next element, for errors.
    private var nextPath: [any CodingKey] { codingPath + [AnyCodingKey(intValue: count)!] }

    private func put(_ content: EncodingArena.Content) {
        arena.append(content, key: nil, to: array)
    }

    mutating func encodeNil() throws { put(.value(.null)) }
    mutating func encode(_ value: Bool) throws { put(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { put(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { put(try ScalarEncoding.double(value, path: { nextPath })) }
    mutating func encode(_ value: Float) throws { put(try ScalarEncoding.float(value, path: { nextPath })) }
    mutating func encode(_ value: Int) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { put(.value(.integer(value))) }
    mutating func encode(_ value: UInt8) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt) throws { put(try ScalarEncoding.integer(value, path: { nextPath })) }
    mutating func encode(_ value: UInt64) throws { put(try ScalarEncoding.integer(value, path: { nextPath })) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let slot = arena.append(.empty, key: nil, to: array)
        try value.encode(to: ArenaEncoder(arena: arena, slot: slot))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let slot = arena.append(.object(first: -1, last: -1, count: 0), key: nil, to: array)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer<NestedKey>(arena: arena, object: slot))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let slot = arena.append(.array(first: -1, last: -1, count: 0), key: nil, to: array)
        return JSONUnkeyedEncodingContainer(arena: arena, array: slot)
    }

    mutating func superEncoder() -> any Encoder {
        ArenaEncoder(arena: arena, slot: arena.append(.empty, key: nil, to: array))
    }
}

/// The single-value container of ``ArenaEncoder``: the encoder's whole value. Encoding a
/// second value replaces the first.
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let arena: EncodingArena
    let slot: Int32

    var codingPath: [any CodingKey] { arena.codingPath(of: slot) }

    private func put(_ content: EncodingArena.Content) {
        arena.set(content, at: slot)
    }

    mutating func encodeNil() throws { put(.value(.null)) }
    mutating func encode(_ value: Bool) throws { put(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { put(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { put(try ScalarEncoding.double(value, path: { codingPath })) }
    mutating func encode(_ value: Float) throws { put(try ScalarEncoding.float(value, path: { codingPath })) }
    mutating func encode(_ value: Int) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int8) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int16) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int32) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: Int64) throws { put(.value(.integer(value))) }
    mutating func encode(_ value: UInt8) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt16) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt32) throws { put(.value(.integer(Int64(value)))) }
    mutating func encode(_ value: UInt) throws { put(try ScalarEncoding.integer(value, path: { codingPath })) }
    mutating func encode(_ value: UInt64) throws { put(try ScalarEncoding.integer(value, path: { codingPath })) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        // The value is this encoder's whole value: it encodes itself into the same slot.
        try value.encode(to: ArenaEncoder(arena: arena, slot: slot))
    }
}
