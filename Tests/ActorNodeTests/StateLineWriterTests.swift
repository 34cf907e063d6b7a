import Testing
@testable import ActorNode
import ActorNodeTesting
import Wire

/// `watch --json` keeps the text of the members a patch did not touch: its lines are still
/// exactly the state's JSON with the revision set.
@Suite("watch --json lines")
struct StateLineWriterTests {
    @Test("after any patch, the line is the whole document written again")
    func sameAsWritingItAll() async throws {
        try await offThePool { try Self.run() }
    }

    private static func run() throws {
        var random = SystemRandomNumberGenerator()
        let keys = ["a", "b", "revision", "é", "Z", "todo"]
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0 ..< (depth > 1 ? 3 : 5), using: &random) {
            case 0: return .integer(Int64.random(in: -99 ... 99, using: &random))
            case 1: return .string(["x", "\"q\"", "é"].randomElement(using: &random)!)
            case 2: return .null
            case 3: return .array((0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in value(depth + 1) })
            default: return .object(Dictionary(uniqueKeysWithValues: keys.shuffled(using: &random).prefix(Int.random(in: 0 ... 3, using: &random)).map { ($0, value(depth + 1)) }))
            }
        }
        var writer = StateLineWriter()
        var document = JSONValue.object(["a": .integer(1), "todo": .object(["items": .array([])])])
        writer.forgetAll()
        for revision in 1 ... 2000 {
            var patch: JSONPatch = []
            guard case let .object(members) = document else { Issue.record("not an object"); return }
            let key = keys.randomElement(using: &random)!
            switch Int.random(in: 0 ..< 6, using: &random) {
            case 0: patch = [.add(JSONPointer(tokens: [key]), value(0))]
            case 1 where members[key] != nil: patch = [.remove(JSONPointer(tokens: [key]))]
            case 2 where members[key] != nil: patch = [.replace(JSONPointer(tokens: [key]), value(0))]
            case 3 where members[key] != nil && members["b"] == nil: patch = [.move(from: JSONPointer(tokens: [key]), to: JSONPointer(tokens: ["b"]))]
            case 4:
                if case .object? = members["todo"] {
                    patch = [.add(JSONPointer(tokens: ["todo", "n"]), value(1))]
                }
            default:
                patch = []
            }
            writer.changed(by: patch)
            try document.applyInPlace(patch)
            // Lines are not written after every patch, as a watcher skips states.
            if Bool.random(using: &random) {
                #expect(writer.line(document, revision: UInt64(revision)) == StateJSON.bytes(document, revision: UInt64(revision)))
            }
        }
        let whole: JSONValue = .object(["z": .integer(1)])
        writer.changed(by: [.replace(JSONPointer(), whole)])
        #expect(writer.line(whole, revision: 9) == StateJSON.bytes(whole, revision: 9))
        #expect(writer.line(.array([]), revision: 9) == StateJSON.bytes(.array([]), revision: 9))
    }
}
