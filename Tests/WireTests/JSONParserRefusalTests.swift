import Testing
@testable import Wire

/// What RFC 8259 does not allow is refused, with the byte offset and a message that says
/// what is wrong.
@Suite("JSON parser: what it refuses, and how it says so")
struct JSONParserRefusalTests {
    /// The error for a text, or nil if it parsed.
    static func refusal(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONParser().parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    private func expectRefused(_ text: String, at offset: Int, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = Self.refusal(Array(text.utf8))
        #expect(error == JSONSyntaxError(offset: offset, message: message), "\(text)", sourceLocation: sourceLocation)
    }

    @Test("empty text, and what RFC 8259 leaves out: trailing commas, comments, single quotes, bare words")
    func grammar() {
        expectRefused("", at: 0, "unexpected end of the text; expected a value")
        expectRefused("  \n", at: 3, "unexpected end of the text; expected a value")
        expectRefused("[1,2,]", at: 5, "unexpected ']' at byte 5; expected a value; a comma must not come right before ']'")
        expectRefused(#"{"a":1,}"#, at: 7, "unexpected '}' at byte 7; expected a string (an object's key); a comma must not come right before '}'")
        expectRefused("[,1]", at: 1, "unexpected ',' at byte 1; expected a value")
        expectRefused("[1 2]", at: 3, "unexpected '2' at byte 3; expected ',' or ']' after an array's element")
        expectRefused(#"{"a" 1}"#, at: 5, "unexpected '1' at byte 5; expected ':' after an object's key")
        expectRefused(#"{"a":1 "b":2}"#, at: 7, #"unexpected '"' at byte 7; expected ',' or '}' after an object's member"#)
        expectRefused("{a:1}", at: 1, "unexpected 'a' at byte 1; expected a string (an object's key) or '}'")
        expectRefused("{1:1}", at: 1, "unexpected '1' at byte 1; expected a string (an object's key) or '}'")
        expectRefused("{'a':1}", at: 1, #"unexpected "'" at byte 1; expected a string (an object's key) or '}'; strings take double quotes"#)
        expectRefused("['a']", at: 1, #"unexpected "'" at byte 1; expected a value; strings take double quotes"#)
        expectRefused("[1] // note", at: 4, "unexpected '/' at byte 4; expected the end of the text (only whitespace may follow the value); JSON has no comments")
        expectRefused("/* note */ 1", at: 0, "unexpected '/' at byte 0; expected a value; JSON has no comments")
        expectRefused("NaN", at: 0, "unexpected 'NaN' at byte 0; expected a value")
        expectRefused("[Infinity]", at: 1, "unexpected 'Infinity' at byte 1; expected a value")
        expectRefused("undefined", at: 0, "unexpected 'undefined' at byte 0; expected a value")
        expectRefused("True", at: 0, "unexpected 'True' at byte 0; expected a value")
        expectRefused("tru", at: 0, "unexpected 'tru' at byte 0; expected a value")
        expectRefused("[nul]", at: 1, "unexpected 'nul' at byte 1; expected a value")
        expectRefused("[true false]", at: 6, "unexpected 'false' at byte 6; expected ',' or ']' after an array's element")
        expectRefused("(1)", at: 0, "unexpected '(' at byte 0; expected a value")
    }

    @Test("nothing but whitespace after the value")
    func trailingGarbage() {
        expectRefused("1 2", at: 2, "unexpected '2' at byte 2; expected the end of the text (only whitespace may follow the value)")
        expectRefused("[]]", at: 2, "unexpected ']' at byte 2; expected the end of the text (only whitespace may follow the value)")
        expectRefused(#"{"a":1}}"#, at: 7, "unexpected '}' at byte 7; expected the end of the text (only whitespace may follow the value)")
        expectRefused("nulls", at: 4, "unexpected 's' at byte 4; expected the end of the text (only whitespace may follow the value)")
        expectRefused("[1]\u{0}", at: 3, "unexpected control character 0x00 at byte 3; expected the end of the text (only whitespace may follow the value)")
        expectRefused("0x10", at: 1, "unexpected 'x10' at byte 1; expected the end of the text (only whitespace may follow the value)")
    }

    @Test("the text may end only after a whole value")
    func truncated() {
        expectRefused("[", at: 1, "unexpected end of the text; expected a value")
        expectRefused("{", at: 1, "unexpected end of the text; expected a string (an object's key) or '}'")
        expectRefused(#"{"a""#, at: 4, "unexpected end of the text; expected ':' after an object's key")
        expectRefused(#"{"a":"#, at: 5, "unexpected end of the text; expected a value")
        expectRefused(#"{"a":1"#, at: 6, "unexpected end of the text; expected ',' or '}' after an object's member")
        expectRefused("[1", at: 2, "unexpected end of the text; expected ',' or ']' after an array's element")
        expectRefused("[1,", at: 3, "unexpected end of the text; expected a value")
        expectRefused(#""abc"#, at: 4, "unexpected end of the text inside a string (it starts at byte 0)")
        expectRefused(#"["a\"#, at: 4, "unexpected end of the text inside a string")
        expectRefused(#"["\u12"#, at: 6, "unexpected end of the text inside a string")
    }

    @Test("numbers: no leading zeros, bare signs, empty fractions or exponents, hex, or doubles beyond range")
    func numbers() {
        expectRefused("01", at: 0, "the number at byte 0 has a leading zero (write 0 alone, or 0.5)")
        expectRefused("[-007]", at: 1, "the number at byte 1 has a leading zero (write 0 alone, or 0.5)")
        expectRefused("-", at: 0, "'-' at byte 0 must be followed by a digit")
        expectRefused("[-]", at: 1, "'-' at byte 1 must be followed by a digit")
        expectRefused("-Infinity", at: 0, "'-' at byte 0 must be followed by a digit")
        expectRefused("- 1", at: 0, "'-' at byte 0 must be followed by a digit")
        expectRefused("+1", at: 0, "unexpected '+' at byte 0; expected a value")
        expectRefused("1.", at: 2, "expected a digit after the decimal point at byte 2")
        expectRefused("[1.]", at: 3, "expected a digit after the decimal point at byte 3")
        expectRefused("1.e5", at: 2, "expected a digit after the decimal point at byte 2")
        expectRefused(".5", at: 0, "unexpected '.' at byte 0; expected a value")
        expectRefused("1e", at: 2, "expected a digit in the exponent at byte 2")
        expectRefused("1e+", at: 3, "expected a digit in the exponent at byte 3")
        expectRefused("1E-x", at: 3, "expected a digit in the exponent at byte 3")
        expectRefused("1e400", at: 0, "the number 1e400 at byte 0 is too large for a double")
        expectRefused("[-2e308]", at: 1, "the number -2e308 at byte 1 is too large for a double")
        expectRefused("[1e99999999999999999999999]", at: 1, "the number 1e99999999999999999999999 at byte 1 is too large for a double")
        let longDigits = String(repeating: "9", count: 400)
        expectRefused(longDigits, at: 0, "the number \(String(longDigits.prefix(40)))… at byte 0 is too large for a double")
    }

    @Test("huge exponents and many digits do not overflow anything")
    func hugeExponents() throws {
        #expect(try JSONParser().parse(Array("1e-99999999999999999999999".utf8)) == .double(0))
        #expect(try JSONParser().parse(Array("0e99999999999999999999999".utf8)) == .double(0))
        #expect(try JSONParser().parse(Array("1e0000000000000000000000000001".utf8)) == .double(10))
        #expect(try JSONParser().parse(Array(("0." + String(repeating: "0", count: 500) + "1e501").utf8)) == .double(1))
    }

    @Test("strings: no raw control characters, only the escapes JSON has, surrogates in pairs")
    func strings() {
        expectRefused("\"a\u{1}b\"", at: 2, #"control character 0x01 at byte 2 inside a string; write it as \u0001"#)
        expectRefused("\"a\nb\"", at: 2, #"control character 0x0a at byte 2 inside a string; write it as \n"#)
        expectRefused("[\"\t\"]", at: 2, #"control character 0x09 at byte 2 inside a string; write it as \t"#)
        expectRefused("\"\u{1F}\"", at: 1, #"control character 0x1f at byte 1 inside a string; write it as \u001f"#)
        expectRefused(#""a\x""#, at: 2, #"invalid escape '\x' at byte 2 inside a string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#)
        expectRefused(#""\'""#, at: 1, #"invalid escape '\'' at byte 1 inside a string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#)
        expectRefused("\"\\\u{1}\"", at: 1, #"invalid escape '\' followed by byte 0x01 at byte 1 inside a string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#)
        expectRefused(#""\u12G4""#, at: 1, #"invalid \u escape at byte 1: expected four hex digits"#)
        expectRefused(#""\u12""#, at: 1, #"invalid \u escape at byte 1: expected four hex digits"#)
        expectRefused(#""\U0041""#, at: 1, #"invalid escape '\U' at byte 1 inside a string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#)
    }

    @Test("a lone surrogate escape is refused", arguments: [
        (#""\ud800""#, 1, #"lone surrogate \ud800 at byte 1: a high surrogate must be followed by a low one (\udc00-\udfff)"#),
        (#""ab\udbffcd""#, 3, #"lone surrogate \udbff at byte 3: a high surrogate must be followed by a low one (\udc00-\udfff)"#),
        (#""\ud800\n""#, 1, #"lone surrogate \ud800 at byte 1: a high surrogate must be followed by a low one (\udc00-\udfff)"#),
        (#""\ud800\u0041""#, 1, #"lone surrogate \ud800 at byte 1: a high surrogate must be followed by a low one (\udc00-\udfff), not \u0041"#),
        (#""\ud800\ud800""#, 1, #"lone surrogate \ud800 at byte 1: a high surrogate must be followed by a low one (\udc00-\udfff), not \ud800"#),
        (#""\udc00""#, 1, #"lone surrogate \udc00 at byte 1: a low surrogate must follow a high one (\ud800-\udbff)"#),
        (#""\ude00\ud83d""#, 1, #"lone surrogate \ude00 at byte 1: a low surrogate must follow a high one (\ud800-\udbff)"#),
    ])
    func loneSurrogates(text: String, offset: Int, message: String) {
        expectRefused(text, at: offset, message)
    }

    @Test("outside strings, only JSON's four whitespace characters and its tokens")
    func strayCharacters() {
        expectRefused("\u{FEFF}1", at: 0, "the text starts with a byte order mark (EF BB BF); JSON text must start with the value itself")
        expectRefused("\u{0}", at: 0, "unexpected control character 0x00 at byte 0; expected a value")
        expectRefused("\u{C}1", at: 0, "unexpected control character 0x0c at byte 0; expected a value")
        expectRefused("é", at: 0, "unexpected character 'é' (U+00E9) at byte 0; expected a value")
        expectRefused("[1,\u{A0}2]", at: 3, "unexpected character '\u{A0}' (U+00A0) at byte 3; expected a value")
        expectRefused("[😀]", at: 1, "unexpected character '😀' (U+1F600) at byte 1; expected a value")
    }

    @Test("the error's description is its message, one line")
    func description() throws {
        let error = try #require(Self.refusal(Array("[1,]".utf8)))
        #expect(String(describing: error) == error.message)
        #expect(!error.message.contains("\n"))
        #expect(describeDecodingFailure(error) == error.message)
    }
}
