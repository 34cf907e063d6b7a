/// What the two readers of this wire (``JSONValueReader``, over a ``JSONValue``, and
/// ``JSONTapeReader``, over a ``JSONTape``) share: the rules that make a scalar of a JSON value
/// (how strict a number is, what a null means) and the errors that say why one does not fit,
/// worded the same whichever reader read it.
protocol JSONScalarReading {
    /// Where the reader's value is in the document, put together only when asked for (an
    /// error, mostly).
    var codingPath: [any CodingKey] { get }
}

/// How a `valueNotFound` for reading past the end of an array starts, so that
/// ``Swift/DecodingError/conciseDescription`` can tell it from a null.
let noElementExplanation = "the array has no element"

/// The order in which the wire writes an object's keys (by their UTF-8 bytes), and in which
/// its readers hand them to `allKeys`.
func wireKeyOrder(_ one: String, _ other: String) -> Bool {
    JSONByteWriter.compareUTF8(one, other) < 0
}

extension JSONScalarReading {
    /// None: the wire reads JSON one way.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    // MARK: Scalars, shared by the three kinds of container
    //
    // `step` says where the value is, for an error; it is only worked out when there is one.

    func readBool(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Bool {
        guard case let .bool(bool) = value else { throw mismatch(Bool.self, found: value, at: step()) }
        return bool
    }

    func readString(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> String {
        guard case let .string(string) = value else { throw mismatch(String.self, found: value, at: step()) }
        return string
    }

    func readDouble(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Double {
        switch value {
        case let .double(double): return double
        case let .integer(integer): return Double(integer)
        default: throw mismatch(Double.self, found: value, at: step())
        }
    }

    func readFloat(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> Float {
        let double = try readDouble(value, at: step())
        let float = Float(double)
        guard float.isFinite else {
            throw doesNotFit(value, at: step(), expected: "a number within the range of a 32-bit float")
        }
        return float
    }

    func readInteger<T: FixedWidthInteger>(_ value: JSONValue, at step: @autoclosure () -> CodingPathStep?) throws -> T {
        switch value {
        case let .integer(integer):
            if let exact = T(exactly: integer) { return exact }
        case let .double(double):
            // Below 2^53 doubles are less than 1 apart, so a whole one stands for itself; from
            // there on one double stands for several whole numbers (9007199254740993 reads as
            // 9007199254740992), and which of them was written is lost.
            if double.magnitude < 0x1p53, let exact = T(exactly: double) { return exact }
        default:
            throw mismatch(T.self, found: value, at: step())
        }
        throw doesNotFit(value, at: step(), expected: "a whole number in range")
    }

    // MARK: Errors

    /// The path of a value at `step` below this reader (or of this reader's own value).
    func path(to step: CodingPathStep?) -> [any CodingKey] {
        codingPath + (step.map { [$0.key] } ?? [])
    }

    /// `valueNotFound` for a null, `typeMismatch` for any other kind of value.
    func mismatch(_ type: Any.Type, found value: JSONValue, at step: CodingPathStep?) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: path(to: step), debugDescription: "found null"))
        }
        return .typeMismatch(type, .init(codingPath: path(to: step), debugDescription: "found \(describe(value))"))
    }

    private func doesNotFit(_ value: JSONValue, at step: CodingPathStep?, expected: String) -> DecodingError {
        .dataCorrupted(.init(
            codingPath: path(to: step),
            debugDescription: "the number \(numberText(value)) does not fit its field (expected \(expected))"))
    }

    /// A number as the wire writes it (which is as it was written, up to the form of doubles).
    private func numberText(_ value: JSONValue) -> String {
        var writer = JSONByteWriter()
        switch value {
        case let .integer(integer): writer.writeInteger(integer)
        case let .double(double): writer.writeDouble(double)
        default: return "?"
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// What a value is, for "found ..." in messages: short values are shown.
    func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case let .bool(bool): return bool ? "true" : "false"
        case .integer, .double: return "the number \(numberText(value))"
        case let .string(string):
            guard string.count <= 40 else { return "a string" }
            var writer = JSONByteWriter()
            writer.writeString(string)
            return "the string \(String(decoding: writer.bytes, as: UTF8.self))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
