import FoundationEssentials
import Wire

/// `json-parser`: the strict parser (``JSONParser``, with its UTF-8 validation), its writers and
/// the canonical-form scanner, on any bytes.
///
/// - Against Foundation's JSON reader (its `JSONDecoder` reading a ``JSONValue``): whatever the
///   parser accepts, Foundation reads as the same JSON (numbers compared by value, since
///   Foundation tries Int64 before Double). The other way nothing is concluded: Foundation is
///   more lenient than RFC 8259 and the wire (fuzzing found it reading a bare `-`, a number with
///   two decimal points, raw control characters in strings, text with zero bytes as UTF-16,
///   besides the duplicate keys and trailing commas it is known to take); the parser's
///   refusals are checked against a reference recognizer of RFC 8259 by `JSONFuzzTests`. Here
///   a refusal must be one line, at an offset inside the text.
/// - Round trips: what the parser reads, ``JSONSerializer`` writes as text that reads back as
///   the same JSON and is written the same again; ``WireJSON`` writes the same bytes; and
///   setting a member in that text (``CanonicalJSON``), when its keys are plain, gives what
///   writing the object with the member set gives.
/// - Canonical text: whatever ``CanonicalJSON`` calls canonical parses, and is written back
///   byte for byte. (The converse need not hold: the scanner may refuse text it is unsure of,
///   such as integers of 19 digits.)
public enum JSONParserTarget: FuzzTarget {
    public static let name = "json-parser"
    public static let summary = "JSONParser never traps, agrees with Foundation where meant to, and its values round-trip through the writers"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let ours: JSONValue
        do {
            ours = try JSONParser().parse(input)
        } catch {
            try checkRefusal(error, of: input)
            guard !CanonicalJSON.isCanonical(input) else {
                throw FuzzFinding("text the parser refuses (\(error)) is called canonical: \(FindingText.text(input))")
            }
            return
        }
        try checkFoundationReads(input, as: ours)
        try checkRoundTrip(ours, from: input)
    }

    /// Foundation's reading of `input`, or nil if it refuses it.
    static func foundationValue(_ input: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(input))
    }

    static func checkFoundationReads(_ input: [UInt8], as ours: JSONValue) throws(FuzzFinding) {
        guard let theirs = foundationValue(input) else {
            throw FuzzFinding("Foundation refuses what the parser reads as \(FindingText.json(ours)): \(FindingText.text(input))")
        }
        guard sameJSON(ours, theirs) else {
            throw FuzzFinding("the parser reads \(FindingText.json(ours)), Foundation \(FindingText.json(theirs)): \(FindingText.text(input))")
        }
    }

    /// A refusal is one line that says where, inside the text.
    static func checkRefusal(_ error: JSONSyntaxError, of input: [UInt8]) throws(FuzzFinding) {
        guard (0 ... input.count).contains(error.offset), !error.message.isEmpty, !error.message.contains("\n") else {
            throw FuzzFinding("the refusal of \(FindingText.text(input)) is not one line at an offset inside the text: \(error.offset): \(error.message)")
        }
    }

    static func checkRoundTrip(_ ours: JSONValue, from input: [UInt8]) throws(FuzzFinding) {
        let written: [UInt8]
        let reread: JSONValue
        do {
            written = try JSONSerializer.serialize(ours)
            reread = try JSONParser().parse(written)
        } catch {
            throw FuzzFinding("\(FindingText.text(input)) does not survive writing and reading: \(error)")
        }
        guard sameJSON(reread, ours) else {
            throw FuzzFinding("\(FindingText.text(input)) is written \(FindingText.text(written)), which reads as \(FindingText.json(reread))")
        }
        guard (try? JSONSerializer.serialize(reread)) == written else {
            throw FuzzFinding("\(FindingText.text(written)), read and written again, is not the same text")
        }
        guard (try? WireJSON.encode(ours)) == written else {
            throw FuzzFinding("WireJSON and JSONSerializer write \(FindingText.text(input)) differently")
        }
        if CanonicalJSON.isCanonical(input), input != written {
            throw FuzzFinding("\(FindingText.text(input)) is called canonical but is written \(FindingText.text(written))")
        }
        if case let .object(members) = ours {
            for key in ["", "a", "m", "~", members.keys.sorted().first ?? "z"] {
                // Nil when the text is not canonical (the scanner may refuse what it is unsure of).
                guard hasPlainKeys(ours), isPlainKey(key), let setKey = CanonicalJSON.setting(key, to: written, in: written) else { continue }
                let expected = try? JSONSerializer.serialize(members, setting: key, to: ours)
                guard setKey == expected else {
                    throw FuzzFinding("setting '\(key)' in \(FindingText.text(written)) gives \(FindingText.text(setKey)), the writer \(expected.map { FindingText.text($0) } ?? "nothing")")
                }
            }
        }
    }

    /// Whether every key in `value` is printable ASCII without `"` or `\`, the keys canonical
    /// text may have.
    static func hasPlainKeys(_ value: JSONValue) -> Bool {
        switch value {
        case let .array(elements): elements.allSatisfy(hasPlainKeys)
        case let .object(members): members.allSatisfy { isPlainKey($0.key) && hasPlainKeys($0.value) }
        default: true
        }
    }

    static func isPlainKey(_ key: String) -> Bool {
        key.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    /// Equal as JSON: numbers compare by value, since an integer written `1.0` or `1e2` is a
    /// double to the parser and an integer to Foundation's reading of a ``JSONValue``. Foundation
    /// also reads a number with a fraction or an exponent that is near a whole number beyond
    /// 2^53 as that whole number, cut (`1234567894567890129E-2` is 12345678945678901 to it),
    /// where the parser takes the nearest double (12345678945678902): within a unit of the
    /// double, they agree.
    static func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.integer(x), .double(y)), let (.double(y), .integer(x)):
            return Double(x) == y || (y.magnitude > 0x1p53 && (Double(x) - y).magnitude <= y.ulp)
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy(sameJSON)
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
        default:
            return a == b
        }
    }
}
