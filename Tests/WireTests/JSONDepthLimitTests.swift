import Testing
@testable import Wire

/// Nesting is limited (512 levels unless told otherwise), and the parser does not recurse:
/// no text, however deep, overflows the stack.
@Suite("JSON parser: nesting depth")
struct JSONDepthLimitTests {
    private func nested(_ depth: Int, open: String = "[", close: String = "]", inner: String = "") -> [UInt8] {
        Array((String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)).utf8)
    }

    @Test("512 levels are fine; 513 are refused at the 513th bracket")
    func defaultLimit() throws {
        var value = try JSONParser().parse(nested(512))
        var depth = 0
        while case let .array(elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == 512)
        #expect(JSONParserRefusalTests.refusal(nested(513)) == JSONSyntaxError(offset: 512, message: "nested more than 512 levels deep at byte 512"))
    }

    @Test("objects count as well as arrays")
    func objects() {
        let deepObjects = Array((String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600)).utf8)
        #expect(JSONParserRefusalTests.refusal(deepObjects) == JSONSyntaxError(offset: 2560, message: "nested more than 512 levels deep at byte 2560"))
    }

    @Test("a million brackets, open or unbalanced, fail cleanly")
    func hostile() {
        #expect(JSONParserRefusalTests.refusal(Array(repeating: UInt8(ascii: "["), count: 1_000_000))?.message == "nested more than 512 levels deep at byte 512")
        #expect(JSONParserRefusalTests.refusal(nested(1_000_000, inner: "1"))?.offset == 512)
        #expect(throws: JSONSyntaxError.self) { try JSONParser(maximumDepth: 2_000_000).parse(Array(repeating: UInt8(ascii: "["), count: 1_000_000)) }
    }

    @Test("a parser told a smaller limit keeps to it")
    func customLimit() throws {
        #expect(try JSONParser(maximumDepth: 2).parse(Array("[[1]]".utf8)) == .array([.array([.integer(1)])]))
        #expect(throws: JSONSyntaxError(offset: 2, message: "nested more than 2 levels deep at byte 2")) {
            try JSONParser(maximumDepth: 2).parse(Array("[[[1]]]".utf8))
        }
        #expect(try JSONParser(maximumDepth: 0).parse(Array("1".utf8)) == .integer(1))
        #expect(throws: JSONSyntaxError.self) { try JSONParser(maximumDepth: 0).parse(Array("[]".utf8)) }
    }
}
