import ActorNode
import Testing
@testable import TodoContract
@testable import Wire

/// Text that is not UTF-8 is refused with an error that says so, naming the first bad byte.
@Suite("JSON parser: UTF-8")
struct JSONUTF8Tests {
    /// `"ab` + bytes + `cd"`: the bad bytes start at offset 3.
    private func inString(_ bytes: [UInt8]) -> [UInt8] {
        Array(#""ab"#.utf8) + bytes + Array(#"cd""#.utf8)
    }

    @Test("ill-formed sequences inside a string", arguments: [
        ([0xFF], 0xFF, 0),                    // never used in UTF-8
        ([0xF5, 0x80, 0x80, 0x80], 0xF5, 0),  // would be above U+10FFFF
        ([0xF8, 0x88, 0x80, 0x80, 0x80], 0xF8, 0),
        ([0x80], 0x80, 0),                    // a continuation byte with no lead
        ([0x41, 0xBF], 0xBF, 1),
        ([0xC0, 0x80], 0xC0, 0),              // overlong NUL
        ([0xC1, 0xBF], 0xC1, 0),              // overlong U+007F
        ([0xE0, 0x80, 0xAF], 0xE0, 0),        // overlong '/'
        ([0xE0, 0x9F, 0xBF], 0xE0, 0),        // overlong U+07FF
        ([0xF0, 0x8F, 0xBF, 0xBF], 0xF0, 0),  // overlong U+FFFF
        ([0xED, 0xA0, 0x80], 0xED, 0),        // U+D800, a surrogate, encoded
        ([0xED, 0xBF, 0xBF], 0xED, 0),        // U+DFFF
        ([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], 0xED, 0), // a surrogate pair in CESU-8
        ([0xF4, 0x90, 0x80, 0x80], 0xF4, 0),  // U+110000
        ([0xC3], 0xC3, 0),                    // cut short
        ([0xE2, 0x82], 0xE2, 0),
        ([0xF0, 0x9F, 0x98], 0xF0, 0),
        ([0xC3, 0x41], 0xC3, 0),              // a lead byte followed by ASCII
        ([0xC3, 0xA9, 0xE2, 0x82], 0xE2, 2),  // a good character, then a truncated one
    ] as [([UInt8], UInt8, Int)])
    func inStrings(bad: [UInt8], byte: UInt8, offsetInBad: Int) {
        let offset = 3 + offsetInBad
        let expected = JSONSyntaxError(offset: offset, message: "the text is not valid UTF-8 (byte \(UTF8Validation.hexByte(byte)) at offset \(offset))")
        #expect(JSONParserRefusalTests.refusal(inString(bad)) == expected)
        // The same with an escape before it: the string takes the other path through the parser.
        let escaped = Array(#""\n"#.utf8) + bad + Array(#"""#.utf8)
        #expect(JSONParserRefusalTests.refusal(escaped)?.message == "the text is not valid UTF-8 (byte \(UTF8Validation.hexByte(byte)) at offset \(3 + offsetInBad))")
    }

    @Test("a truncated sequence at the very end of a string, and of the text")
    func truncatedAtEnd() {
        #expect(JSONParserRefusalTests.refusal([0x22, 0xE2, 0x82, 0x22])
            == JSONSyntaxError(offset: 1, message: "the text is not valid UTF-8 (byte 0xe2 at offset 1)"))
        #expect(JSONParserRefusalTests.refusal([0x22, 0xE2, 0x82])?.message == "unexpected end of the text inside a string (it starts at byte 0)")
    }

    @Test("bad bytes in keys, and outside strings")
    func elsewhere() {
        #expect(JSONParserRefusalTests.refusal(Array(#"{""#.utf8) + [0xFE] + Array(#"":1}"#.utf8))
            == JSONSyntaxError(offset: 2, message: "the text is not valid UTF-8 (byte 0xfe at offset 2)"))
        #expect(JSONParserRefusalTests.refusal([0x5B, 0x31, 0x2C, 0xFF, 0x5D])
            == JSONSyntaxError(offset: 3, message: "the text is not valid UTF-8 (byte 0xff at offset 3)"))
        #expect(JSONParserRefusalTests.refusal([0x31, 0x20, 0xC0, 0x80])
            == JSONSyntaxError(offset: 2, message: "the text is not valid UTF-8 (byte 0xc0 at offset 2)"))
    }

    @Test("decoding a message with a bad byte says it in words, not Foundation's error dump")
    func wireMessage() {
        let frame = Array(#"{"action":{"action":{"add":{"text":""#.utf8) + [0xFF] + Array(#""}},"client":"c","seq":1}}"#.utf8)
        do {
            _ = try WireJSON.decode(ClientMessage<AppAction>.self, from: frame)
            Issue.record("decoded invalid UTF-8")
        } catch {
            #expect(describeDecodingFailure(error) == "the text is not valid UTF-8 (byte 0xff at offset 36)")
        }
    }

    @Test("the validator agrees with the standard library's on random bytes")
    func agreesWithStandardLibrary() {
        var random = SeededRandom(seed: 8)
        // Bytes drawn mostly from the ranges where UTF-8's rules are decided.
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0 ..< 5_000 {
            let count = Int(random.next() % 8)
            let bytes = (0 ..< count).map { _ in
                random.next() % 4 == 0 ? UInt8(truncatingIfNeeded: random.next()) : interesting[Int(random.next() % UInt64(interesting.count))]
            }
            let standard = String(validating: bytes, as: UTF8.self) != nil
            let ours = bytes.withUnsafeBufferPointer { UTF8Validation.firstInvalidOffset(in: 0 ..< $0.count, of: $0) == nil }
            #expect(standard == ours, "\(bytes)")
        }
    }
}
