/// The keyed container of ``JSONTapeReader``: the members of one JSON object on a tape.
struct JSONTapeKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// The reader whose value is this object (it gives the coding path).
    let reader: JSONTapeReader
    /// For an object of many members, each key's value entry (a few are compared one by one).
    private let index: [String: Int]?

    init(reader: JSONTapeReader) {
        self.reader = reader
        let tape = reader.tape
        let object = tape.entries[reader.index]
        if object.second > 16 {
            var index = [String: Int](minimumCapacity: object.second)
            var key = reader.index + 1
            while key < object.first {
                index[tape.string(at: key)] = key + 1
                key = tape.after(key + 1)
            }
            self.index = index
        } else {
            index = nil
        }
    }

    var codingPath: [any CodingKey] { reader.codingPath }

    /// The keys in the order the wire writes them (by their UTF-8 bytes), as
    /// ``JSONValueReader``'s containers give them.
    var allKeys: [Key] {
        let tape = reader.tape
        var names: [String] = []
        names.reserveCapacity(tape.entries[reader.index].second)
        var key = reader.index + 1
        let end = tape.entries[reader.index].first
        while key < end {
            names.append(tape.string(at: key))
            key = tape.after(key + 1)
        }
        return names.sorted(by: wireKeyOrder).compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { lookUp(key) != nil }

    /// The entry of the member named `key`, if there is one.
    private func lookUp(_ key: Key) -> Int? { lookUp(name: key.stringValue) }

    /// The entry of the member named `name`, if there is one.
    private func lookUp(name: String) -> Int? {
        if let index { return index[name] }
        var bytes = name
        let tape = reader.tape
        let end = tape.entries[reader.index].first
        return bytes.withUTF8 { bytes -> Int? in
            var nameIsASCII = true
            for byte in bytes where byte >= 0x80 { nameIsASCII = false }
            var member = reader.index + 1
            while member < end {
                if tape.key(at: member, is: bytes, nameIsASCII: nameIsASCII, string: name) { return member + 1 }
                member = tape.after(member + 1)
            }
            return nil
        }
    }

    private func member(_ key: Key) throws -> Int {
        guard let entry = lookUp(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "the object has no member \"\(key.stringValue)\""))
        }
        return entry
    }

    /// The member for `key` unless it is missing or null (what `decodeIfPresent` reads).
    private func presentMember(_ key: Key) -> Int? {
        guard let entry = lookUp(key), !reader.isNull(entry) else { return nil }
        return entry
    }

    func decodeNil(forKey key: Key) throws -> Bool { reader.isNull(try member(key)) }

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
        try reader.decodeChild(type, at: member(key), step: .key(key))
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
        try presentMember(key).map { try reader.decodeChild(type, at: $0, step: .key(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try reader.child(member(key), at: .key(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try reader.child(member(key), at: .key(key)).unkeyedContainer()
    }

    /// A decoder for the member `super`; null if there is none (as in Foundation).
    func superDecoder() throws -> any Decoder {
        reader.child(lookUp(name: "super") ?? -1, at: .key(AnyCodingKey("super")))
    }

    /// A decoder for the member `key`; null if there is none (as in Foundation).
    func superDecoder(forKey key: Key) throws -> any Decoder {
        reader.child(lookUp(key) ?? -1, at: .key(key))
    }
}

/// The unkeyed container of ``JSONTapeReader``: the elements of one JSON array, read in order.
/// A failed decode leaves ``currentIndex`` where it was.
struct JSONTapeUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let reader: JSONTapeReader
    /// The current element's entry.
    private var entry: Int
    private(set) var currentIndex = 0
    let count: Int?

    init(reader: JSONTapeReader) {
        self.reader = reader
        entry = reader.index + 1
        count = reader.tape.entries[reader.index].second
    }

    var codingPath: [any CodingKey] { reader.codingPath }
    var isAtEnd: Bool { currentIndex >= count! }

    /// Reads the current element with `read` and moves past it.
    private mutating func next<T>(_ type: T.Type, _ read: (Int, CodingPathStep) throws -> T) throws -> T {
        guard !isAtEnd else { throw pastTheEnd(type) }
        let value = try read(entry, .index(currentIndex))
        entry = reader.tape.after(entry)
        currentIndex += 1
        return value
    }

    private func pastTheEnd(_ type: Any.Type) -> DecodingError {
        DecodingError.valueNotFound(type, .init(
            codingPath: reader.path(to: .index(currentIndex)),
            debugDescription: "\(noElementExplanation) \(currentIndex) (it has \(count!))"))
    }

    /// Moves past the current element only if it is null.
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw pastTheEnd(Any?.self) }
        guard reader.isNull(entry) else { return false }
        entry += 1
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
        return try next(type) { entry, step in try reader.decodeChild(type, at: entry, step: step) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let reader = reader
        return try next(KeyedDecodingContainer<NestedKey>.self) { entry, step in try reader.child(entry, at: step).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let reader = reader
        return try next((any UnkeyedDecodingContainer).self) { entry, step in try reader.child(entry, at: step).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        let reader = reader
        return try next((any Decoder).self) { entry, step in reader.child(entry, at: step) }
    }
}

/// The single-value container of ``JSONTapeReader``: the reader's whole value.
struct JSONTapeSingleValueDecodingContainer: SingleValueDecodingContainer {
    let reader: JSONTapeReader

    var codingPath: [any CodingKey] { reader.codingPath }

    func decodeNil() -> Bool { reader.isNull(reader.index) }

    func decode(_ type: Bool.Type) throws -> Bool { try reader.readBool(reader.index, at: nil) }
    func decode(_ type: String.Type) throws -> String { try reader.readString(reader.index, at: nil) }
    func decode(_ type: Double.Type) throws -> Double { try reader.readDouble(reader.index, at: nil) }
    func decode(_ type: Float.Type) throws -> Float { try reader.readFloat(reader.index, at: nil) }
    func decode(_ type: Int.Type) throws -> Int { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.readInteger(reader.index, at: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.readInteger(reader.index, at: nil) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // The value is this reader's whole value: it decodes itself from the same reader.
        try T(from: reader)
    }
}
