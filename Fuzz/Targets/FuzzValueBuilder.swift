import Wire

/// Builds JSON values, pointers and patch operations from an input's choices (``FuzzInput``):
/// every input makes something valid, and small changes to the input make small changes to the
/// value, which is what lets libFuzzer steer a diff or a patch towards its edge cases.
///
/// Keys and tokens come from a small alphabet that holds what pointers treat specially (`~`,
/// `/`, `-`, indexes with and without leading zeros, the empty key), so that different paths
/// meet often.
struct FuzzValueBuilder {
    var input: FuzzInput

    /// The keys and tokens values and pointers are made of.
    static let words = ["a", "b", "", "0", "1", "2", "01", "-", "~", "/", "~0", "~1", "a/b", "é", "10", "x"]

    /// A value at most `depth` containers deep, with at most a few members or elements in each.
    mutating func value(depth: Int) -> JSONValue {
        switch input.choice(below: depth > 0 ? 9 : 7) {
        case 0: return .null
        case 1: return .bool(input.byte() & 1 == 1)
        case 2: return .integer(Int64(Int8(bitPattern: input.byte())))
        case 3: return .double(Double(Int8(bitPattern: input.byte())) / 4)
        case 4: return .string(word())
        case 5: return .integer(Int64(bitPattern: UInt64(input.byte()) << 56 | UInt64(input.byte())))
        case 6: return .double([0.0, -0.0, 1e300, .leastNonzeroMagnitude, 0.1][input.choice(below: 5)])
        case 7: return .array((0 ..< input.choice(below: 5)).map { _ in value(depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0 ..< input.choice(below: 5) { members[word()] = value(depth: depth - 1) }
            return .object(members)
        }
    }

    mutating func word() -> String {
        Self.words[input.choice(below: Self.words.count)]
    }

    /// A pointer that mostly names something in `document` (a walk down its containers), and
    /// sometimes one step past it: a new key, `-`, an index out of range, a made-up token.
    mutating func pointer(in document: JSONValue) -> JSONPointer {
        var tokens: [String] = []
        var here = document
        while input.choice(below: 4) != 0 {
            switch here {
            case let .object(members) where !members.isEmpty && input.choice(below: 4) != 0:
                let keys = members.keys.sorted()
                let key = keys[input.choice(below: keys.count)]
                tokens.append(key)
                here = members[key] ?? .null
            case let .array(elements) where !elements.isEmpty && input.choice(below: 4) != 0:
                let index = input.choice(below: elements.count)
                tokens.append(String(index))
                here = elements[index]
            default:
                tokens.append(word())
                here = .null
            }
        }
        return JSONPointer(tokens: tokens)
    }

    /// An operation of any kind, its pointers mostly into `document`, its value small.
    mutating func operation(on document: JSONValue) -> JSONPatchOperation {
        let kind = [JSONPatchOperation.Kind.add, .remove, .replace, .move, .copy, .test][input.choice(below: 6)]
        let path = pointer(in: document)
        let from = kind == .move || kind == .copy || input.choice(below: 8) == 0 ? pointer(in: document) : nil
        let operand = kind == .add || kind == .replace || kind == .test || input.choice(below: 8) == 0 ? value(depth: 2) : nil
        return JSONPatchOperation(op: kind, path: path, from: from, value: operand)
    }
}
