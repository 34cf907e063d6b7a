import ActorNode
import FoundationEssentials
import Testing
@testable import TodoContract
@testable import Wire

/// Thousands of mutated documents: the parser never crashes, accepts exactly what a simple
/// reference recognizer accepts, and whatever it accepts, Foundation reads the same way.
@Suite("JSON parser: fuzzing")
struct JSONFuzzTests {
    /// Valid documents to start from: messages as the wire writes them, and a few shapes of
    /// JSON the wire does not write.
    static func corpus() throws -> [[UInt8]] {
        var documents: [[UInt8]] = [
            Array(#"{"a":[1,-2.5e-3,true,false,null,"x\"y\\z\u00e9\ud83d\ude00"],"b":{"c":{}},"d":[]}"#.utf8),
            Array(#"[0,-0,0.5,1E+2,1e-2,123456789012345678901234567890,"",{"":""}]"#.utf8),
            Array(" \t\n\r{ \"k\" : [ 1 , { \"k\" : \"v\" } ] }\n ".utf8),
            Array("\"é€😀 raw \u{7F}\"".utf8),
            Array("[[[[[[[[]]]]]]]]".utf8),
        ]
        let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk"), TodoItem(id: 2, text: "naïve \"quote\"", done: true)], nextId: 3),
                             timer: TimerState(item: 1, running: true, remaining: 30, deadline: 1_767_225_660.5))
        documents.append(try WireJSON.encode(ClientMessage<AppAction>.action(ActionRequest(client: "c1", seq: 42, action: .todo(.add(text: "buy milk"))))))
        documents.append(try WireJSON.encode(ClientMessage<AppAction>.hello(Hello(role: .shell, client: "c1", name: "shell"))))
        documents.append(try WireJSON.encode(ServerMessage<AppState>.welcome(Welcome(core: "x", pid: 1, shells: 1, revision: 2, snapshot: state))))
        documents.append(try WireJSON.encode(ServerMessage<AppState>.rendition(Rendition(revision: 3, content: .patch([
            .replace(JSONPointer("/timer/deadline")!, .double(0.25)), .add(JSONPointer("/todo/items/-")!, .object(["id": .integer(9)])),
        ])))))
        return documents
    }

    /// Byte strings a mutation inserts: structure, escapes, number parts, and bytes that are
    /// not UTF-8 or only part of it.
    static let insertions: [[UInt8]] = [
        [0x2C], [0x5D], [0x7D], [0x5B], [0x7B], [0x22], [0x3A], [0x5C], [0x20], [0x09], [0x0A], [0x00], [0x1F],
        Array(#"\u"#.utf8), Array(#"\ud800"#.utf8), Array(#"\udc00"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\x"#.utf8),
        Array("1e".utf8), Array("-".utf8), Array("0".utf8), Array("01".utf8), Array(".5".utf8), Array("e9".utf8), Array("1e400".utf8),
        Array("NaN".utf8), Array("true".utf8), Array("nul".utf8), Array("//".utf8), Array("'".utf8),
        Array("é".utf8), Array("😀".utf8), [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xEF, 0xBB, 0xBF],
        Array(#""k":1,"#.utf8), Array(#","k":2"#.utf8),
    ]

    static func mutate(_ document: [UInt8], using random: inout SeededRandom) -> [UInt8] {
        var bytes = document
        func position(_ limit: Int) -> Int { limit == 0 ? 0 : Int(random.next() % UInt64(limit)) }
        for _ in 0 ... Int(random.next() % 3) {
            switch random.next() % 7 {
            case 0 where !bytes.isEmpty:
                bytes.remove(at: position(bytes.count))
            case 1:
                bytes.insert(contentsOf: insertions[position(insertions.count)], at: position(bytes.count + 1))
            case 2 where !bytes.isEmpty:
                let index = position(bytes.count)
                bytes.replaceSubrange(index ... index, with: insertions[position(insertions.count)])
            case 3 where !bytes.isEmpty:
                // A copied range: repeats keys, values and brackets.
                let start = position(bytes.count)
                let end = min(bytes.count, start + 1 + position(12))
                bytes.insert(contentsOf: bytes[start ..< end], at: position(bytes.count + 1))
            case 4 where !bytes.isEmpty:
                bytes.removeSubrange(position(bytes.count)...)
            case 5 where bytes.count > 1:
                bytes.swapAt(position(bytes.count), position(bytes.count))
            default:
                bytes[position(bytes.count)...].reverse()
            }
        }
        return bytes
    }

    @Test("mutated documents: no crash, the same verdict as the reference, Foundation agrees where it is defined")
    func fuzz() throws {
        var random = SeededRandom(seed: 2_026)
        let corpus = try Self.corpus()
        var accepted = 0
        for round in 0 ..< 4_000 {
            let document = Self.mutate(corpus[round % corpus.count], using: &random)
            let text = String(decoding: document, as: UTF8.self)
            let reference = ReferenceRecognizer.accepts(document)
            let ours: JSONValue?
            do {
                ours = try JSONParser().parse(document)
            } catch {
                ours = nil
                #expect((0 ... document.count).contains(error.offset), "\(text): \(error)")
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(text): \(error)")
            }
            #expect((ours != nil) == reference, "ours: \(ours != nil), reference: \(reference): \(text) \(document)")
            // Decoding a message from it fails (or succeeds) in one readable line.
            do {
                _ = try WireJSON.decode(ClientMessage<AppAction>.self, from: document)
            } catch {
                #expect(!describeDecodingFailure(error).contains("\n"))
            }
            guard let ours else { continue }
            accepted += 1
            // What the parser accepts is written as text that reads back as the same JSON
            // (`1E+2` is written `100`, an integer from then on) and is then written the same.
            let written = try JSONSerializer.serialize(ours)
            let reread = try JSONParser().parse(written)
            #expect(Self.sameJSON(reread, ours), "\(text)")
            #expect(try JSONSerializer.serialize(reread) == written, "\(text)")
            // Foundation is more lenient (trailing commas, duplicate keys), never stricter.
            do {
                let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(document))
                #expect(Self.sameJSON(ours, theirs), "\(text): \(ours) != \(theirs)")
            } catch {
                Issue.record("Foundation refused what the parser accepted: \(text) \(document): \(error)")
            }
        }
        // The mutations should leave a fair share of documents valid, or the test says little.
        #expect(accepted > 300, "only \(accepted) accepted")
    }

    /// Equal as JSON: numbers compare by value, since Foundation's reading of a JSONValue tries
    /// Int64 before Double (`1.0` is an integer there, a double here).
    static func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.integer(x), .double(y)), let (.double(y), .integer(x)):
            return Double(x) == y
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy(sameJSON)
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameJSON(value, $0) } ?? false }
        default:
            return a == b
        }
    }
}

/// A deliberately simple recognizer of RFC 8259's grammar, written from its ABNF and sharing
/// no code with the parser: the reference the fuzz test compares against. It adds the wire's
/// own rules: no duplicate keys, at most 512 levels, numbers that fit a double.
struct ReferenceRecognizer {
    private let bytes: [UInt8]
    private var index = 0

    static func accepts(_ bytes: [UInt8]) -> Bool {
        // RFC 8259 section 8.1: JSON text is UTF-8.
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        var recognizer = ReferenceRecognizer(bytes: bytes)
        recognizer.whitespace()
        guard recognizer.value(depth: 0) else { return false }
        recognizer.whitespace()
        return recognizer.index == bytes.count
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: Character) -> Bool {
        guard next == byte.asciiValue else { return false }
        index += 1
        return true
    }

    // ws = *( %x20 / %x09 / %x0A / %x0D )
    private mutating func whitespace() {
        while let byte = next, [0x20, 0x09, 0x0A, 0x0D].contains(byte) { index += 1 }
    }

    // value = false / null / true / object / array / number / string
    private mutating func value(depth: Int) -> Bool {
        switch next {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"): return word("true")
        case UInt8(ascii: "f"): return word("false")
        case UInt8(ascii: "n"): return word("null")
        default: return number()
        }
    }

    private mutating func word(_ word: String) -> Bool {
        for byte in word.utf8 {
            guard next == byte else { return false }
            index += 1
        }
        return true
    }

    // object = begin-object [ member *( value-separator member ) ] end-object
    private mutating func object(depth: Int) -> Bool {
        guard depth <= 512 else { return false }
        index += 1
        whitespace()
        if take("}") { return true }
        var keys = Set<String>()
        while true {
            whitespace()
            guard let key = string(), keys.insert(key).inserted else { return false }
            whitespace()
            guard take(":") else { return false }
            whitespace()
            guard value(depth: depth) else { return false }
            whitespace()
            if take(",") { continue }
            return take("}")
        }
    }

    // array = begin-array [ value *( value-separator value ) ] end-array
    private mutating func array(depth: Int) -> Bool {
        guard depth <= 512 else { return false }
        index += 1
        whitespace()
        if take("]") { return true }
        while true {
            whitespace()
            guard value(depth: depth) else { return false }
            whitespace()
            if take(",") { continue }
            return take("]")
        }
    }

    // string = quotation-mark *char quotation-mark; the string's value, or nil.
    private mutating func string() -> String? {
        guard take("\"") else { return nil }
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flushRaw() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw = []
        }
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flushRaw()
                return String(scalars)
            case 0x00 ..< 0x20:
                return nil
            case UInt8(ascii: "\\"):
                flushRaw()
                guard let escape = next else { return nil }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let unit = hex4() else { return nil }
                    if (0xD800 ... 0xDBFF).contains(unit) {
                        guard take("\\"), take("u"), let low = hex4(), (0xDC00 ... 0xDFFF).contains(low) else { return nil }
                        scalars.append(Unicode.Scalar(0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00))!)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { return nil } // a lone low surrogate
                        scalars.append(scalar)
                    }
                default:
                    return nil
                }
            default:
                raw.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index ..< index + 4], as: UTF8.self), radix: 16),
              bytes[index ..< index + 4].allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }) else { return nil }
        index += 4
        return value
    }

    // number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT )
    private mutating func number() -> Bool {
        let start = index
        func digits() -> Int {
            let first = index
            while let byte = next, (0x30 ... 0x39).contains(byte) { index += 1 }
            return index - first
        }
        _ = take("-")
        if take("0") {
            // A zero stands alone.
        } else if digits() == 0 {
            return false
        }
        if take("."), digits() == 0 { return false }
        if take("e") || take("E") {
            _ = take("+") || take("-")
            if digits() == 0 { return false }
        }
        return Double(String(decoding: bytes[start ..< index], as: UTF8.self))?.isFinite == true
    }
}
