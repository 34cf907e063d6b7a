import Testing
import Wire

/// RFC 6901 pointers: text to tokens and back.
@Suite("JSON Pointers")
struct JSONPointerTests {
    @Test("tokens between slashes, empty ones kept, ~1 and ~0 unescaped", arguments: [
        ("", []),
        ("/", [""]),
        ("/a", ["a"]),
        ("/todo/items/0/done", ["todo", "items", "0", "done"]),
        ("//a//", ["", "a", "", ""]),
        ("/a~1b/c~0d", ["a/b", "c~d"]),
        ("/~01", ["~1"]),
        ("/é/😀", ["é", "😀"]),
    ] as [(String, [String])])
    func parsing(_ text: String, _ tokens: [String]) throws {
        let pointer = try #require(JSONPointer(text))
        #expect(pointer.tokens == tokens)
        #expect(pointer.description == text)
    }

    @Test("text that does not start with a slash is no pointer", arguments: ["a", "a/b", " /a", "~1"])
    func refused(_ text: String) {
        #expect(JSONPointer(text) == nil)
    }

    @Test("any tokens written as text read back as the same tokens")
    func roundTrip() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0 ..< 500 {
            let tokens = (0 ..< Int.random(in: 0 ... 4, using: &random)).map { _ in
                String((0 ..< Int.random(in: 0 ... 4, using: &random)).map { _ in "a0/~é-".randomElement(using: &random)! })
            }
            let pointer = JSONPointer(tokens: tokens)
            #expect(JSONPointer(pointer.description)?.tokens == tokens, "\(pointer.description)")
        }
    }
}
