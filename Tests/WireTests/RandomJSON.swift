import Wire

/// Random JSON values, pointers and patches for the tests that compare a hand-written reader or
/// writer of renditions with the general one: strings with quotes, escapes, controls (C0, DEL,
/// C1) and characters beyond ASCII; keys that need escaping; whole numbers of every size.
struct RandomJSON {
    private var random = SystemRandomNumberGenerator()

    /// A value, nested up to three levels below `depth`.
    mutating func value(_ depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0 ..< (depth > 2 ? 5 : 7), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .integer(Int64.random(in: Int64.min ... Int64.max, using: &random))
        case 3: return .double(Double.random(in: -1e6 ... 1e6, using: &random))
        case 4: return .string(String((0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in "ab\"\\/~é\n\t\u{0}\u{7f}\u{9b}😀".randomElement(using: &random)! }))
        case 5: return .array((0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in value(depth + 1) })
        default:
            let members = (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in (["k0", "k1", "é", "a\"", "Z", ""].randomElement(using: &random)!, value(depth + 1)) }
            return .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// A pointer of up to three tokens, some of them needing escapes.
    mutating func pointer() -> JSONPointer {
        JSONPointer(tokens: (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in ["a", "0", "~", "/", "-", "é", "\"", "\u{1}"].randomElement(using: &random)! })
    }

    /// A patch of up to four operations of every kind.
    mutating func patch() -> JSONPatch {
        (0 ..< Int.random(in: 0 ... 4, using: &random)).map { _ in
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0: return .add(pointer(), value())
            case 1: return .remove(pointer())
            case 2: return .replace(pointer(), value())
            case 3: return JSONPatchOperation(op: .copy, path: pointer(), from: pointer())
            case 4: return JSONPatchOperation(op: .test, path: pointer(), value: value())
            default: return .move(from: pointer(), to: pointer())
            }
        }
    }
}
