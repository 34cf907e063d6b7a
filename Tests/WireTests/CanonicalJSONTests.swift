import ActorNode
import Testing
import TodoContract
import Wire

/// Text called canonical is exactly what the serializer writes for what the parser reads from
/// it, so it can be passed on (or have a member set) without being read and written again.
@Suite("Canonical JSON")
struct CanonicalJSONTests {
    private func canonical(_ text: String) -> Bool {
        CanonicalJSON.isCanonical(Array(text.utf8))
    }

    @Test("what the wire writes is canonical")
    func writtenIsCanonical() throws {
        for document in try JSONFuzzTests.corpus() {
            let rewritten = try JSONSerializer.serialize(JSONParser().parse(document))
            #expect(CanonicalJSON.isCanonical(rewritten), "\(String(decoding: rewritten, as: UTF8.self))")
        }
        let odd: [JSONValue] = [
            .string("\u{7F}\u{80}\u{9B}\u{9F}\u{A0}\t\n\r\u{8}\u{C}\u{0}\u{1F}\"\\/é😀"),
            .double(0.1), .double(1e20), .double(-2.5e-7), .double(.leastNonzeroMagnitude), .double(-0.0), .double(1.7976931348623157e308),
            .integer(Int64.max), .integer(Int64.min), .integer(0), .integer(-1),
            .object(["b": .array([]), "a": .object([:]), "A": .null, "aa": .bool(true), "": .bool(false)]),
        ]
        for value in odd {
            let text = try JSONSerializer.serialize(.array([value]))
            // Whole numbers past 18 digits are left to the general way, on purpose.
            if case let .integer(integer) = value, integer.magnitude >= 1_000_000_000_000_000_000 { continue }
            #expect(CanonicalJSON.isCanonical(text), "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test("anything else is not", arguments: [
        #"{"a":1 }"#, #" {"a":1}"#, #"{"a": 1}"#, #"[1, 2]"#, "{\"a\":1}\n",
        #"{"b":1,"a":2}"#, #"{"a":1,"a":2}"#, #"{"é":1}"#, #"{"a\n":1}"#,
        #""\/""#, #""\u0041""#, #""\u001B""#, #""\u000a""#, #""\u00e9""#, #""\ud83d\ude00""#,
        "\"\u{7F}\"", "\"\u{9B}\"", "\"\u{1}\"", #""\q""#,
        "1.0", "1E5", "1e5", "-0.0", "-00", "01", "1.50", "0.30000000000000001", "1234567890123456789", "1e400", "+1", ".5",
        "tru", "nul", "[1,]", "{\"a\":1,}", "[", "\"", "{}{}", "NaN",
    ])
    func notCanonical(_ text: String) {
        #expect(!canonical(text))
    }

    @Test("invalid UTF-8 and nesting past the limit are not canonical")
    func invalidText() {
        #expect(!CanonicalJSON.isCanonical([0x22, 0xFF, 0x22]))
        #expect(!CanonicalJSON.isCanonical([0x22, 0xED, 0xA0, 0x80, 0x22]))
        #expect(!CanonicalJSON.isCanonical([0x22, 0xC3, 0x22]))
        #expect(CanonicalJSON.isCanonical(Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)))
        #expect(!CanonicalJSON.isCanonical(Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)))
    }

    @Test("mutated documents: whatever is called canonical reads back and is written as the same bytes")
    func fuzz() throws {
        var random = SeededRandom(seed: 1_123)
        var corpus = try JSONFuzzTests.corpus().map { try JSONSerializer.serialize(JSONParser().parse($0)) }
        corpus += try JSONFuzzTests.corpus()
        var canonicalSeen = 0
        for round in 0 ..< 6_000 {
            let document = JSONFuzzTests.mutate(corpus[round % corpus.count], using: &random)
            guard CanonicalJSON.isCanonical(document) else { continue }
            canonicalSeen += 1
            let value = try JSONParser().parse(document)
            #expect(try JSONSerializer.serialize(value) == document, "\(String(decoding: document, as: UTF8.self))")
        }
        #expect(canonicalSeen > 100)
    }

    @Test("a member set: added at its place in the order of keys, or replaced; the same as writing the changed value")
    func setting() throws {
        let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk")], nextId: 2))
        let text = try WireJSON.encode(state)
        for (key, value) in [("revision", "7"), ("a", "[]"), ("zz", "{\"x\":null}"), ("counter", "1"), ("todo", "\"t\""), ("", "0")] {
            let set = try #require(CanonicalJSON.setting(key, to: Array(value.utf8), in: text))
            guard case var .object(members) = try JSONParser().parse(text) else { Issue.record("not an object"); return }
            members[key] = try JSONParser().parse(Array(value.utf8))
            #expect(set == (try JSONSerializer.serialize(.object(members))), "\(key): \(String(decoding: set, as: UTF8.self))")
            #expect(CanonicalJSON.isCanonical(set))
        }
        #expect(CanonicalJSON.setting("revision", to: Array("7".utf8), in: Array("{}".utf8)) == Array(#"{"revision":7}"#.utf8))
        #expect(CanonicalJSON.setting("revision", to: Array("7".utf8), in: Array("[1]".utf8)) == nil)
        #expect(CanonicalJSON.setting("revision", to: Array("7".utf8), in: Array(#"{"b":1,"a":2}"#.utf8)) == nil)
        #expect(CanonicalJSON.setting("revision", to: Array("7".utf8), in: Array(#"{"a":1} "#.utf8)) == nil)
        #expect(CanonicalJSON.setting("re\"v", to: Array("7".utf8), in: Array("{}".utf8)) == nil)
    }
}
