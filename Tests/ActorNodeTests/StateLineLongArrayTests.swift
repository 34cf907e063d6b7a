import Testing
@testable import ActorNode
import ActorNodeTesting
import Wire

/// `watch --json` keeps the text of each element of a long list, so that a change to one item
/// does not write the list again: its lines are still exactly the state's JSON, whatever the
/// patches do to the list (elements added, removed, moved, copied, replaced, changed inside,
/// the list replaced whole).
@Suite("watch --json lines over a long list")
struct StateLineLongArrayTests {
    @Test("after any patch of a long list, the line is the whole document written again", arguments: [1, 2, 3])
    func sameAsWritingItAll(seed: UInt64) async throws {
        try await offThePool { try Self.run(seed: seed) }
    }

    private static func run(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        func item(_ id: Int) -> JSONValue {
            var members: [String: JSONValue] = ["id": .integer(Int64(id)), "done": .bool(random.next() % 2 == 0), "text": .string("item \(id) é")]
            if random.next() % 4 == 0 {
                members["tags"] = .array((0 ..< Int(random.next() % 70)).map { .integer(Int64($0)) })
            }
            return .object(members)
        }
        var next = 0
        func newItem() -> JSONValue {
            next += 1
            return item(next)
        }
        var document = JSONValue.object(["todo": .object(["items": .array((0 ..< 100).map { _ in newItem() }), "nextId": .integer(101)]), "counter": .integer(0)])
        var writer = StateLineWriter()
        for revision in 1 ... 2000 {
            guard case let .object(root) = document, case let .object(todo)? = root["todo"], case let .array(items)? = todo["items"] else {
                Issue.record("not the expected shape")
                return
            }
            let count = items.count
            let index = count == 0 ? 0 : Int(random.next() % UInt64(count))
            let other = count == 0 ? 0 : Int(random.next() % UInt64(count))
            let at = { (tokens: [String]) in JSONPointer(tokens: ["todo", "items"] + tokens) }
            var patch: JSONPatch
            switch random.next() % 10 {
            case 0: patch = [.add(at(["-"]), newItem())]
            case 1: patch = [.add(at([String(index)]), newItem())]
            case 2 where count > 0: patch = [.remove(at([String(index)]))]
            case 3 where count > 0: patch = [.replace(at([String(index), "done"]), .bool(random.next() % 2 == 0))]
            case 4 where count > 0: patch = [.move(from: at([String(index)]), to: at([String(other)]))]
            case 5 where count > 0: patch = [JSONPatchOperation(op: .copy, path: at([String(other)]), from: at([String(index)]))]
            case 6 where count > 0: patch = [.replace(at([String(index)]), newItem())]
            case 7 where count > 0:
                if case let .object(members) = items[index], case let .array(tags)? = members["tags"], !tags.isEmpty {
                    patch = [.remove(at([String(index), "tags", String(Int(random.next() % UInt64(tags.count)))]))]
                } else {
                    patch = [.add(at([String(index), "tags"]), .array((0 ..< 66).map { .integer(Int64($0)) }))]
                }
            case 8 where random.next() % 20 == 0:
                patch = [.replace(JSONPointer(tokens: ["todo", "items"]), .array((0 ..< 70).map { _ in newItem() }))]
            default:
                patch = [.replace(JSONPointer(tokens: ["counter"]), .integer(Int64(revision)))]
            }
            writer.changed(by: patch)
            try document.applyInPlace(patch)
            // Lines are not written after every patch, as a watcher skips states.
            if random.next() % 3 == 0 {
                let line = writer.line(document, revision: UInt64(revision))
                let expected = StateJSON.bytes(document, revision: UInt64(revision))
                guard line == expected else {
                    Issue.record("seed \(seed), revision \(revision), after \(patch.map(\.json)): the line differs from the document written whole")
                    return
                }
            }
        }
    }
}
