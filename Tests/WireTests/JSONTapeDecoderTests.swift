import ActorNode
import Testing
@testable import TodoContract
@testable import Wire

/// The tape decoder (``JSONTapeDecoder``) reads every text as ``JSONValueDecoder`` reads what
/// ``JSONParser`` makes of it: the same value, or the same error, word for word.
@Suite("JSON tape decoder: the same as the value decoder")
struct JSONTapeDecoderTests {
    /// Every scalar kind, optionals, and a JSON value inside.
    struct Scalars: Codable, Equatable {
        var b: Bool?
        var s: String?
        var d: Double?
        var f: Float?
        var i: Int?
        var i8: Int8?
        var i16: Int16?
        var i32: Int32?
        var i64: Int64?
        var u: UInt?
        var u8: UInt8?
        var u16: UInt16?
        var u32: UInt32?
        var u64: UInt64?
        var list: [Int?]?
        var map: [String: Int]?
        var any: JSONValue?
    }

    /// Every scalar kind, required, from an array.
    struct Required: Decodable, Equatable {
        var values: [String]
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var values: [String] = []
            values.append(String(try container.decode(Bool.self)))
            values.append(try container.decode(String.self))
            values.append(String(try container.decode(Double.self)))
            values.append(String(try container.decode(Float.self)))
            values.append(String(try container.decode(Int.self)))
            values.append(String(try container.decode(UInt8.self)))
            values.append(String(try container.decode(Int64.self)))
            values.append(String(try container.decode(UInt64.self)))
            self.values = values
        }
    }

    /// The outcome of one reading: the value's JSON, or the error's line.
    private static func outcome<T: Decodable>(_ read: () throws -> T, written: (T) throws -> String) -> String {
        do {
            return "value " + (try written(try read()))
        } catch {
            return "error " + describeDecodingFailure(error)
        }
    }

    /// Whether both decoders agree on `document` as a `T`; records where they do not.
    @discardableResult
    private static func agree<T: Decodable>(_ type: T.Type, _ document: [UInt8], written: (T) throws -> String) -> Bool {
        let general = outcome({ try JSONValueDecoder().decode(type, from: JSONParser().parse(document)) }, written: written)
        let tape = outcome({ try JSONTapeDecoder.decode(type, from: document) }, written: written)
        #expect(general == tape, "\(T.self) from \(String(decoding: document, as: UTF8.self)) (\(document))")
        return general == tape
    }

    private static func agree<T: Codable>(_ type: T.Type, _ document: [UInt8]) {
        agree(type, document) { try WireJSON.string($0) }
    }

    private static func agreeOnEverything(_ document: [UInt8]) {
        agree(JSONValue.self, document)
        agree(ClientMessage<AppAction>.self, document)
        agree(ServerMessage<AppState>.self, document)
        agree(AppAction.self, document)
        agree(AppState.self, document)
        agree(Scalars.self, document)
        agree([String: Int].self, document)
        agree([Int?].self, document)
        agree(Required.self, document) { $0.values.joined(separator: " ") }
        agree(JSONDecoderContainerTests.Everything.self, document) { value in
            "\(value.name) \(value.point) \(value.flags.sorted { $0.key < $1.key }) \(value.inner) \(value.inherited) \(value.inheritedByKey) \(value.list) \(value.paths)"
        }
    }

    @Test("the syntax errors are the parser's, at the same offsets")
    func syntax() throws {
        var random = SeededRandom(seed: 77)
        let corpus = try JSONFuzzTests.corpus()
        for round in 0 ..< 3_000 {
            let document = JSONFuzzTests.mutate(corpus[round % corpus.count], using: &random)
            let general = Result { () throws(JSONSyntaxError) in try JSONParser().parse(document) }
            let tape = Result { () throws(JSONSyntaxError) in try JSONTape(document) }
            switch (general, tape) {
            case let (.failure(one), .failure(other)): #expect(one == other, "\(document)")
            case (.success, .success): break
            default: Issue.record("the parser and the tape disagree on \(document): \(general) against \(tape)")
            }
        }
        // Keys given twice, also when they differ only in how an "é" is written, or come in a
        // big object (another way of finding them).
        for text in [#"{"a":1,"b":2,"a":3}"#, #"{"é":1,"e\u0301":2}"#, #"[{"x":{"y":1,"y":2}}]"#,
                     "{" + (0 ..< 20).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k3\":0}", #"{"\u212a":1,"K":2}"#] {
            let general = Result { () throws(JSONSyntaxError) in try JSONParser().parse(Array(text.utf8)) }
            let tape = Result { () throws(JSONSyntaxError) in try JSONTape(Array(text.utf8)) }
            guard case let .failure(one) = general, case let .failure(other) = tape else {
                Issue.record("\(text): \(general) against \(tape)")
                continue
            }
            #expect(one == other && one.message.hasPrefix("duplicate key"), "\(text)")
        }
    }

    @Test("messages, actions, states and every kind of container read alike")
    func documents() throws {
        let texts = [
            #"{"add":{"text":"buy milk"}}"#, #"{"counter":"increment"}"#, #"{"counter":{"set":{"value":5}}}"#,
            #"{"counter":{"set":{"value":5.0}}}"#, #"{"counter":{"set":{"value":5.5}}}"#, #"{"counter":{"set":{"value":1e300}}}"#,
            #"{"move":{"id":1}}"#, #"{"add":{"text":null}}"#, #"{"add":{"text":"a","text2":1}}"#, #""clear""#, #""pick""#,
            #"{"add":{}, "clear":{}}"#, #"{}"#, #"{"shout":{}}"#, #"{"timer":{"start":{"id":3}}}"#, #"{"pick":{}}"#,
            #"{"todo":{"items":[{"id":1,"text":"a","done":false},{"id":2,"text":"b"}],"nextId":3}}"#,
            #"{"todo":[]}"#, #"{"todo":{"items":{},"nextId":1}}"#, "7", "null", "[]", #"[1,null,3]"#, #"{"1":"a","-2":"b"}"#,
            #"{"b":true,"s":"x\"\u00e9","d":1,"f":1e39,"i":-9223372036854775808,"i8":128,"u":-1,"u64":18446744073709551615}"#,
            #"{"i64":9007199254740993.0,"i32":2147483647,"u8":255.0,"u16":1e4,"list":[1,null,2.5],"map":{"a":1,"b":null},"any":{"k":[1,2.0,"s",null,{}]}}"#,
            #"[true,"s",1.5,2,3,255,-1,1]"#, #"[true,"s",1.5,2,3,256,-1,1]"#, #"[true,"s",1.5,1e40,3,255,-1,1]"#, #"[true]"#,
            #"{"name":"n","point":[1,2,3],"box":{"inner":7},"nested":{"a":true,"b":false},"super":"s","base":5,"list":[["x"],null,["y"]]}"#,
            #"{"name":"n","point":[1,2,3],"box":{"inner":7},"nested":{"a":true},"list":[["x"],null,["y"]]}"#,
            #"{"name":"n","point":[1,"2"],"box":{"inner":7},"nested":{"a":true},"super":"s","base":5,"list":[]}"#,
            #"{"action":{"client":"c","seq":1,"action":{"add":{"text":"x"}}}}"#, #"{"hello":{"protocolVersion":1,"role":"shell","client":"c","name":"n"}}"#,
            #"{"e\u0301":1,"\u00e9x":2}"#, #"{"K":1}"#, #"{"\u212a":1}"#,
        ]
        for text in texts { Self.agreeOnEverything(Array(text.utf8)) }
    }

    @Test("thousands of mutated messages read alike, errors included")
    func mutated() throws {
        var random = SeededRandom(seed: 2_027)
        let corpus = try JSONFuzzTests.corpus() + [
            Array(#"{"b":true,"s":"x","d":1.5,"f":2,"i":-3,"i8":4,"i16":5,"i32":6,"i64":7,"u":8,"u8":9,"u16":10,"u32":11,"u64":12,"list":[1,null],"map":{"a":1},"any":[{}]}"#.utf8),
            Array(#"[true,"s",1.5,2,3,255,-1,1]"#.utf8),
        ]
        for round in 0 ..< 2_000 {
            Self.agreeOnEverything(JSONFuzzTests.mutate(corpus[round % corpus.count], using: &random))
        }
    }

    @Test("a member is found by its key as Swift compares strings, by both decoders and in objects of any size")
    func canonicalKeys() throws {
        struct Kelvin: Decodable, Equatable { var K: Int }
        struct Accent: Decodable, Equatable { var é: Int }
        for text in [#"{"\u212a":1}"#, #"{"\u212a":1,"a":2,"b":3,"c":4,"d":5,"e":6,"f":7,"g":8,"h":9}"#] {
            #expect(try JSONValueDecoder().decode(Kelvin.self, from: JSONParser().parse(Array(text.utf8))) == Kelvin(K: 1), "\(text)")
            #expect(try JSONTapeDecoder.decode(Kelvin.self, from: Array(text.utf8)) == Kelvin(K: 1), "\(text)")
        }
        let decomposed = Array(#"{"e\u0301":1}"#.utf8)
        #expect(try JSONValueDecoder().decode(Accent.self, from: JSONParser().parse(decomposed)) == Accent(é: 1))
        #expect(try JSONTapeDecoder.decode(Accent.self, from: decomposed) == Accent(é: 1))
    }

    @Test("a document inside a larger buffer is read from its range")
    func range() throws {
        let text = Array(#"xx{"add":{"text":"buy milk"}}yy"#.utf8)
        #expect(try JSONTape(text[2 ..< text.count - 2]).decode(AppAction.self) == .todo(.add(text: "buy milk")))
        #expect(throws: JSONSyntaxError.self) { try JSONTape(text[...]).decode(AppAction.self) }
    }
}
