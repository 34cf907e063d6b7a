import ActorNode
import Testing
@testable import Wire

@Suite("JSON Patch and diff")
struct JSONPatchTests {
    private func value(_ text: String) throws -> JSONValue {
        try WireJSON.decode(JSONValue.self, from: Array(text.utf8))
    }

    private func patch(_ text: String) throws -> JSONPatch {
        try WireJSON.decode(JSONPatch.self, from: Array(text.utf8))
    }

    @Test("JSON pointers escape ~ and /")
    func pointers() {
        #expect(JSONPointer("/a~1b/c~0d/0")?.tokens == ["a/b", "c~d", "0"])
        #expect(JSONPointer(tokens: ["a/b", "c~d"]).description == "/a~1b/c~0d")
        #expect(JSONPointer("")?.tokens == [])
        #expect(JSONPointer("no-slash") == nil)
    }

    @Test("the six RFC 6902 operations apply", arguments: [
        (#"{"a":1}"#, #"[{"op":"add","path":"/b","value":2}]"#, #"{"a":1,"b":2}"#),
        (#"{"a":[1,3]}"#, #"[{"op":"add","path":"/a/1","value":2}]"#, #"{"a":[1,2,3]}"#),
        (#"{"a":[1,2]}"#, #"[{"op":"add","path":"/a/-","value":3}]"#, #"{"a":[1,2,3]}"#),
        (#"{"a":1,"b":2}"#, #"[{"op":"remove","path":"/a"}]"#, #"{"b":2}"#),
        (#"{"a":[1,2,3]}"#, #"[{"op":"remove","path":"/a/0"}]"#, #"{"a":[2,3]}"#),
        (#"{"a":{"b":1}}"#, #"[{"op":"replace","path":"/a/b","value":"x"}]"#, #"{"a":{"b":"x"}}"#),
        (#"{"a":[1,2,3]}"#, #"[{"op":"move","from":"/a/0","path":"/a/2"}]"#, #"{"a":[2,3,1]}"#),
        (#"{"a":{"b":1},"c":{}}"#, #"[{"op":"move","from":"/a/b","path":"/c/d"}]"#, #"{"a":{},"c":{"d":1}}"#),
        (#"{"a":[1]}"#, #"[{"op":"copy","from":"/a/0","path":"/b"}]"#, #"{"a":[1],"b":1}"#),
        (#"{"a":"x"}"#, #"[{"op":"test","path":"/a","value":"x"}]"#, #"{"a":"x"}"#),
        (#"{"a":1}"#, #"[{"op":"replace","path":"","value":[true,null]}]"#, #"[true,null]"#),
    ])
    func operations(document: String, operations: String, expected: String) throws {
        var target = try value(document)
        try target.apply(patch(operations))
        #expect(target == (try value(expected)))
    }

    @Test("a null value survives the round trip: replacing with null is not a missing value")
    func nullValues() throws {
        let operation = JSONPatchOperation.replace(JSONPointer("/timer/item")!, .null)
        let text = try WireJSON.string([operation])
        #expect(text == #"[{"op":"replace","path":"/timer/item","value":null}]"#)
        #expect(try patch(text) == [operation])
        var document = try value(#"{"timer":{"item":3}}"#)
        try document.apply(patch(text))
        #expect(document == (try value(#"{"timer":{"item":null}}"#)))
        #expect(try patch(#"[{"op":"remove","path":"/a"}]"#)[0].value == nil)
    }

    @Test("a failing patch leaves the document unchanged and names the operation", arguments: [
        #"[{"op":"add","path":"/b","value":2},{"op":"remove","path":"/missing"}]"#,
        #"[{"op":"add","path":"/list/5","value":2}]"#,
        #"[{"op":"add","path":"/list/01","value":2}]"#,
        #"[{"op":"test","path":"/a","value":2}]"#,
        #"[{"op":"move","from":"/list","path":"/list/0"}]"#,
        #"[{"op":"replace","path":"/a"}]"#,
        #"[{"op":"add","path":"/a/x","value":1}]"#,
    ])
    func failuresAreAtomic(operations: String) throws {
        let original = try value(#"{"a":1,"list":[0]}"#)
        var target = original
        #expect(throws: JSONPatchError.self) { try target.apply(patch(operations)) }
        #expect(target == original)
    }

    @Test("replace does what a remove and an add at the same place do, errors included")
    func replaceIsRemoveThenAdd() throws {
        let documents = [
            #"{"a":1,"list":[0,{"x":[1,2]}],"o":{"p":{"q":null}},"s":"t"}"#,
            #"[1,[2,[3]],{"k":"v"}]"#, "5", "{}", "[]",
        ].map { try! value($0) }
        let paths = [
            "", "/a", "/list", "/list/0", "/list/1/x/1", "/list/1/x/2", "/list/2", "/list/-", "/list/01", "/o/p/q", "/o/p/missing",
            "/missing", "/missing/x", "/a/x", "/s/0", "/0", "/1/1/0", "/2/k", "/3", "/-", "/1/x",
        ]
        for document in documents {
            for path in paths {
                let pointer = try #require(JSONPointer(path))
                var replaced = document
                let replacedError = Result { () throws(JSONPatchError) in try replaced.applyInPlace([.replace(pointer, .string("new"))]) }
                var twoSteps = document
                let twoStepsError = Result { () throws(JSONPatchError) in
                    // The whole document cannot be removed; replacing it sets it.
                    if pointer.tokens.isEmpty { twoSteps = .string("new") } else { try twoSteps.applyInPlace([.remove(pointer), .add(pointer, .string("new"))]) }
                }
                switch (replacedError, twoStepsError) {
                case (.success, .success):
                    #expect(replaced == twoSteps, "\(path) in \(document)")
                case let (.failure(one), .failure(other)):
                    #expect(one.operationIndex == 0 && other.operationIndex == 0 && one.reason == other.reason, "\(path) in \(document): \(one) against \(other)")
                default:
                    Issue.record("\(path) in \(document): \(replacedError) against \(twoStepsError)")
                }
            }
        }
    }

    @Test("typical list edits cost one operation each")
    func minimalDiffs() throws {
        let items = (1 ... 6).map { JSONValue.object(["id": .integer(Int64($0)), "done": .bool(false)]) }
        func diff(_ new: [JSONValue]) -> JSONPatch {
            JSONValue.diff(from: .object(["items": .array(items)]), to: .object(["items": .array(new)]))
        }
        var appended = items
        appended.append(.object(["id": .integer(7), "done": .bool(false)]))
        #expect(diff(appended) == [.add(JSONPointer("/items/6")!, appended[6])])

        var removed = items
        removed.remove(at: 2)
        #expect(diff(removed) == [.remove(JSONPointer("/items/2")!)])

        var toggled = items
        toggled[3] = .object(["id": .integer(4), "done": .bool(true)])
        #expect(diff(toggled) == [.replace(JSONPointer("/items/3/done")!, .bool(true))])

        var movedUp = items
        movedUp.insert(movedUp.remove(at: 4), at: 1)
        #expect(diff(movedUp) == [.move(from: JSONPointer("/items/4")!, to: JSONPointer("/items/1")!)])

        var movedDown = items
        movedDown.insert(movedDown.remove(at: 0), at: 5)
        #expect(diff(movedDown) == [.move(from: JSONPointer("/items/0")!, to: JSONPointer("/items/5")!)])

        #expect(diff(items).isEmpty)
    }

    @Test("applying diff(a, b) to a gives b, for many random edits")
    func diffRoundTrip() throws {
        var random = SeededRandom(seed: 7)
        var document = JSONValue.object(["todo": .object(["items": .array([]), "nextId": .integer(1)])])
        for _ in 0 ..< 400 {
            let next = Self.randomEdit(of: document, using: &random)
            var patched = document
            try patched.apply(JSONValue.diff(from: document, to: next))
            #expect(patched == next)
            document = next
        }
    }

    /// One random change of a to-do-shaped document: add, remove, toggle, edit, move, clear.
    static func randomEdit(of document: JSONValue, using random: inout SeededRandom) -> JSONValue {
        guard case var .object(root) = document, case var .object(todo)? = root["todo"],
              case var .array(items)? = todo["items"], case let .integer(nextId)? = todo["nextId"] else { return document }
        switch random.next() % 7 {
        case 0, 1:
            items.insert(.object(["id": .integer(nextId), "text": .string("item \(nextId)"), "done": .bool(false)]),
                         at: Int(random.next() % UInt64(items.count + 1)))
            todo["nextId"] = .integer(nextId + 1)
        case 2 where !items.isEmpty:
            items.remove(at: Int(random.next() % UInt64(items.count)))
        case 3 where !items.isEmpty:
            let index = Int(random.next() % UInt64(items.count))
            if case var .object(item) = items[index] {
                item["done"] = .bool(random.next() % 2 == 0)
                item["text"] = .string("edited \(random.next() % 100)")
                items[index] = .object(item)
            }
        case 4 where items.count > 1, 5 where items.count > 1:
            let item = items.remove(at: Int(random.next() % UInt64(items.count)))
            items.insert(item, at: Int(random.next() % UInt64(items.count + 1)))
        case 6 where random.next() % 5 == 0:
            items = []
        default:
            break
        }
        todo["items"] = .array(items)
        root["todo"] = .object(todo)
        return .object(root)
    }

    @Test("JSON values round-trip through text, keeping integers and doubles apart")
    func valueCoding() throws {
        let text = #"{"a":[1,2.5,true,null,"s"],"b":{"c":-3}}"#
        let decoded = try value(text)
        #expect(decoded == .object([
            "a": .array([.integer(1), .double(2.5), .bool(true), .null, .string("s")]),
            "b": .object(["c": .integer(-3)]),
        ]))
        #expect(try WireJSON.string(decoded) == text)
    }
}
