import ActorNode
import Testing
@testable import Wire

/// Every form RFC 8259 allows reads as the value it means.
@Suite("JSON parser: what it accepts")
struct JSONParserAcceptanceTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONParser().parse(Array(text.utf8))
    }

    @Test("literals, strings, numbers, arrays and objects, alone or nested", arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        (#""""#, .string("")),
        (#""abc""#, .string("abc")),
        ("[]", .array([])),
        ("{}", .object([:])),
        ("[1,\"a\",null,true,false,{},[]]", .array([.integer(1), .string("a"), .null, .bool(true), .bool(false), .object([:]), .array([])])),
        (#"{"a":{"b":[{"c":null}]}}"#, .object(["a": .object(["b": .array([.object(["c": .null])])])])),
        (" \t\r\n[ 1 , 2 ]\n ", .array([.integer(1), .integer(2)])),
        ("{ \"a\" : 1 , \"b\" : [ ] }", .object(["a": .integer(1), "b": .array([])])),
    ])
    func forms(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test("integers that fit Int64 are integers; other numbers are doubles", arguments: [
        ("0", JSONValue.integer(0)),
        ("7", .integer(7)),
        ("-7", .integer(-7)),
        ("9223372036854775807", .integer(.max)),
        ("-9223372036854775808", .integer(.min)),
        ("9223372036854775808", .double(0x1p63)),
        ("-9223372036854775809", .double(-0x1p63)),
        ("18446744073709551616", .double(0x1p64)),
        ("1.5", .double(1.5)),
        ("1.0", .double(1)),
        ("-0.25", .double(-0.25)),
        ("1e3", .double(1000)),
        ("1E3", .double(1000)),
        ("1e+3", .double(1000)),
        ("25e-1", .double(2.5)),
        ("0.1", .double(0.1)),
        ("0e0", .double(0)),
        ("1767225660.5", .double(1_767_225_660.5)),
        ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
        ("5e-324", .double(.leastNonzeroMagnitude)),
        ("1e-400", .double(0)),
        ("123456789012345678901234567890", .double(1.2345678901234568e29)),
        ("0.30000000000000004", .double(0.1 + 0.2)),
        ("9007199254740993", .integer(9_007_199_254_740_993)),
        ("9007199254740993.0", .double(9_007_199_254_740_992)),
    ])
    func numbers(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test("-0 is a negative zero, so that the encoder's -0 reads back as one")
    func negativeZero() throws {
        guard case let .double(zero) = try parse("-0") else {
            Issue.record("-0 is not a double")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test("doubles read back exactly as the shortest text wrote them")
    func doublesRoundTrip() throws {
        var random = SeededRandom(seed: 3)
        for _ in 0 ..< 2_000 {
            let double = Double(bitPattern: random.next())
            guard double.isFinite else { continue }
            // Swift's description: the shortest text that reads back as the same double, always
            // with a fraction or an exponent.
            #expect(try parse(double.description) == .double(double), "\(double)")
        }
    }

    @Test("every escape, surrogate pairs included", arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""\u0041\u00e9\u00E9\u20AC""#, "Aéé€"),
        (#""\u0000""#, "\u{0}"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD83D\uDE00""#, "😀"),
        (#""a\nb""#, "a\nb"),
        (#""x\u0022y""#, "x\"y"),
        (#""\uffff""#, "\u{FFFF}"),
        (#""\udbff\udfff""#, "\u{10FFFF}"),
    ])
    func escapes(text: String, expected: String) throws {
        #expect(try parse(text) == .string(expected))
    }

    @Test("raw UTF-8 of one to four bytes, and characters JSON need not escape", arguments: [
        "é", "€", "😀", "\u{10FFFF}", "\u{7F}", "\u{2028}\u{2029}", "/", "日本語のテキスト", "e\u{301}",
    ])
    func rawUTF8(text: String) throws {
        #expect(try parse("\"\(text)\"") == .string(text))
        #expect(try parse("[\"\(text)\",\"\(text)\"]") == .array([.string(text), .string(text)]))
    }

    @Test("a string mixing escapes and raw text keeps both")
    func mixedString() throws {
        #expect(try parse(#""héllo \"wörld\" \u00e9 😀\n""#) == .string("héllo \"wörld\" é 😀\n"))
    }

    @Test("any contiguous or non-contiguous collection of bytes is read")
    func collections() throws {
        let bytes = Array(#"{"a":[1,2]}"#.utf8)
        let expected = JSONValue.object(["a": .array([.integer(1), .integer(2)])])
        #expect(try JSONParser().parse(bytes) == expected)
        #expect(try JSONParser().parse(bytes[...]) == expected)
        #expect(try JSONParser().parse(Array(#"xx{"a":[1,2]}"#.utf8).dropFirst(2)) == expected)
        #expect(try JSONParser().parse(#"{"a":[1,2]}"#.utf8) == expected)
        #expect(try JSONParser().parse(bytes.lazy.map { $0 }) == expected)
        #expect(try bytes.withUnsafeBytes { try JSONParser().parse($0) } == expected)
    }

    @Test("long strings and wide documents")
    func large() throws {
        let long = String(repeating: "abcdé", count: 20_000)
        #expect(try parse("\"\(long)\"") == .string(long))
        let array = "[" + (0 ..< 10_000).map(String.init).joined(separator: ",") + "]"
        #expect(try parse(array) == .array((0 ..< 10_000).map { .integer(Int64($0)) }))
        let object = "{" + (0 ..< 1_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(try parse(object).objectValue?.count == 1_000)
    }
}
