import Testing
@testable import TodoContract
@testable import Wire

/// An object that names a key twice is refused: other readers would take the first value, or
/// the last, and the two sides would disagree about what the message says.
@Suite("JSON parser: duplicate keys")
struct JSONDuplicateKeyTests {
    @Test("a key twice in one object is refused, naming the key and where it comes again", arguments: [
        (#"{"text":"a","text":"b"}"#, 12, #"duplicate key "text" in an object (at byte 12)"#),
        (#"{"a":1,"b":2,"a":1}"#, 13, #"duplicate key "a" in an object (at byte 13)"#),
        (#"[{"x":{"y":1,"y":1}}]"#, 13, #"duplicate key "y" in an object (at byte 13)"#),
        (#"{"":1,"":2}"#, 6, #"duplicate key "" in an object (at byte 6)"#),
        (#"{"a\nb":1,"a\u000ab":2}"#, 10, #"duplicate key "a\nb" in an object (at byte 10)"#),
        (#"{"é":1,"\u00e9":2}"#, 8, #"duplicate key "é" in an object (at byte 8)"#),
        // One key written precomposed and decomposed: the same Swift string, the same key.
        ("{\"\u{E9}\":1,\"e\u{301}\":2}", 8, "duplicate key \"e\u{301}\" in an object (at byte 8)"),
    ])
    func refused(text: String, offset: Int, message: String) {
        #expect(JSONParserRefusalTests.refusal(Array(text.utf8)) == JSONSyntaxError(offset: offset, message: message))
    }

    @Test("the same key in different objects is fine")
    func differentObjects() throws {
        let value = try JSONParser().parse(Array(#"{"a":{"a":1},"b":[{"a":2},{"a":3}]}"#.utf8))
        #expect(value == .object(["a": .object(["a": .integer(1)]), "b": .array([.object(["a": .integer(2)]), .object(["a": .integer(3)])])]))
    }

    @Test("keys that differ only in case or by one byte are different keys")
    func nearDuplicates() throws {
        #expect(try JSONParser().parse(Array(#"{"a":1,"A":2,"a ":3}"#.utf8)).objectValue?.count == 3)
    }

    @Test("a message with a repeated field is refused before it is decoded")
    func onTheWire() {
        let text = #"{"action":{"action":{"add":{"text":"milk","text":"rm -rf"}},"client":"c","seq":1}}"#
        do {
            _ = try WireJSON.decode(ClientMessage<AppAction>.self, from: Array(text.utf8))
            Issue.record("decoded a message with a duplicate key")
        } catch {
            #expect(describeDecodingFailure(error) == #"duplicate key "text" in an object (at byte 42)"#)
        }
    }
}
