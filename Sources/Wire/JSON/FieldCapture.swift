/// What a value's `encode(to:)` writes at its top level, caught without encoding any deeper:
/// for a struct (a keyed container), each member's key and value, in the order written. It is
/// how ``FieldDiff`` learns a type's fields from its own coding keys, with no `Mirror` and no
/// list of fields kept by hand.
///
/// A member's value is kept as it was given (a scalar, or the `Encodable` itself, not encoded);
/// a member left out (`encodeIfPresent` of nil) is not there, as the JSON encoder leaves it
/// out. Anything but plain members in one keyed container (a single value, an unkeyed
/// container, nested containers, `super`) makes the value ``Shape/other``: it is then
/// compared and replaced whole.
@usableFromInline
final class FieldCapture: Encoder {
    /// What the value wrote.
    @usableFromInline
    enum Shape {
        /// Nothing yet.
        case empty
        /// Members of one object: ``fields``.
        case members
        /// Anything else.
        case other
    }

    /// One member's value, as the encoder was given it.
    @usableFromInline
    enum Field {
        case null
        case bool(Bool)
        case string(String)
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
        case float(Float)
        case value(any Encodable)
    }

    /// One member: its key and its value. (A struct, not a tuple: an array of tuples has the
    /// runtime make the tuple's type, and walking two of them with `zip` the zip's, at every
    /// diff.)
    @usableFromInline
    struct Member {
        let key: String
        let value: Field
    }

    // Unchecked: one capture is made, filled and read by one call on one thread, and no access
    // to these outlasts the statement making it (the run-time check cost some 65 instructions
    // a container, callgrind).
    @exclusivity(unchecked) @usableFromInline var shape = Shape.empty
    @exclusivity(unchecked) @usableFromInline var fields: [Member] = []

    @usableFromInline
    init() {}

    /// What `value` writes at its top level.
    @usableFromInline
    static func capture(_ value: some Encodable) -> FieldCapture {
        let capture = FieldCapture()
        do {
            try value.encode(to: capture)
        } catch {
            // A value that refuses to be encoded here will refuse the real encoder too, which
            // reports it; compared whole, it goes there.
            capture.shape = .other
        }
        return capture
    }

    @usableFromInline var codingPath: [any CodingKey] { [] }
    @usableFromInline var userInfo: [CodingUserInfoKey: Any] { [:] }

    @usableFromInline
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if shape == .empty {
            shape = .members
            // Room for a small struct's members at once, not grown one by one.
            fields.reserveCapacity(4)
        }
        return KeyedEncodingContainer(Members<Key>(capture: self))
    }

    @usableFromInline
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        shape = .other
        return Ignored(count: 0)
    }

    @usableFromInline
    func singleValueContainer() -> any SingleValueEncodingContainer {
        shape = .other
        return Ignored(count: 0)
    }

    fileprivate func put(_ field: Field, _ key: some CodingKey) {
        if shape == .members { fields.append(Member(key: key.stringValue, value: field)) }
    }

    /// The keyed container: each member's value kept.
    private struct Members<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let capture: FieldCapture
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws { capture.put(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { capture.put(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { capture.put(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { capture.put(.double(value), key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { capture.put(.float(value), key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { capture.put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { capture.put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { capture.put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { capture.put(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { capture.put(.integer(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { capture.put(.unsigned(UInt64(value)), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { capture.put(.unsigned(UInt64(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { capture.put(.unsigned(UInt64(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { capture.put(.unsigned(UInt64(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { capture.put(.unsigned(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { capture.put(.value(value), key) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            capture.shape = .other
            return KeyedEncodingContainer(Members<NestedKey>(capture: capture))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            capture.shape = .other
            return Ignored(count: 0)
        }

        mutating func superEncoder() -> any Encoder {
            capture.shape = .other
            return capture
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            capture.shape = .other
            return capture
        }
    }

    /// A container whose values do not matter: the value is compared whole.
    private struct Ignored: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        var count: Int
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws {}
        mutating func encode(_ value: Bool) throws {}
        mutating func encode(_ value: String) throws {}
        mutating func encode(_ value: Double) throws {}
        mutating func encode(_ value: Float) throws {}
        mutating func encode(_ value: Int) throws {}
        mutating func encode(_ value: Int8) throws {}
        mutating func encode(_ value: Int16) throws {}
        mutating func encode(_ value: Int32) throws {}
        mutating func encode(_ value: Int64) throws {}
        mutating func encode(_ value: UInt) throws {}
        mutating func encode(_ value: UInt8) throws {}
        mutating func encode(_ value: UInt16) throws {}
        mutating func encode(_ value: UInt32) throws {}
        mutating func encode(_ value: UInt64) throws {}
        mutating func encode<T: Encodable>(_ value: T) throws {}

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Members<NestedKey>(capture: FieldCapture()))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { FieldCapture() }
    }
}
