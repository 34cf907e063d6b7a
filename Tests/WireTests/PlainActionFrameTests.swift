import ActorNode
import Testing
@testable import Wire

/// The core's quick reading of an action frame says yes only to what the strict reader reads
/// the same way.
@Suite("Plain action frames")
struct PlainActionFrameTests {
    private func scan(_ text: String) -> PlainActionFrame? {
        PlainActionFrame.scan(Array(text.utf8))
    }

    private func action(_ text: String) -> String? {
        guard let plain = scan(text) else { return nil }
        return String(decoding: Array(text.utf8)[plain.action], as: UTF8.self)
    }

    @Test("the plain form, its members in any order and with whitespace, gives the seq and the action's text")
    func plainForms() {
        #expect(scan(#"{"action":{"action":{"counter":"increment"},"client":"c1","seq":7}}"#)?.seq == 7)
        #expect(action(#"{"action":{"action":{"counter":"increment"},"client":"c1","seq":7}}"#) == #"{"counter":"increment"}"#)
        #expect(action(#"{"action":{"seq":1,"client":"c","action":"x"}}"#) == #""x""#)
        #expect(action(#" { "action" : { "client" : "c" , "seq" : 9223372036854775807 , "action" : [1, {"a":"}"}] } } "#) == #"[1, {"a":"}"}]"#)
        #expect(action(#"{"action":{"client":"c","seq":2,"action":true}}"#) == "true")
        #expect(action(#"{"action":{"client":"c","seq":2,"action":"a\"}b"}}"#) == #""a\"}b""#)
    }

    @Test("anything else is left to the strict reader", arguments: [
        #"{"action":{"client":"c","seq":0,"action":1}}"#,
        #"{"action":{"client":"c","seq":-1,"action":1}}"#,
        #"{"action":{"client":"c","seq":01,"action":1}}"#,
        #"{"action":{"client":"c","seq":1.0,"action":1}}"#,
        #"{"action":{"client":"c","seq":1e3,"action":1}}"#,
        #"{"action":{"client":"c","seq":9223372036854775808,"action":1}}"#,
        #"{"action":{"client":"c","seq":"1","action":1}}"#,
        #"{"action":{"client":"c\u0041","seq":1,"action":1}}"#,
        #"{"action":{"client":"é","seq":1,"action":1}}"#,
        #"{"action":{"client":1,"seq":1,"action":1}}"#,
        #"{"action":{"client":"c","seq":1,"action":1,"extra":2}}"#,
        #"{"action":{"client":"c","seq":1,"seq":2,"action":1}}"#,
        #"{"action":{"client":"c","seq":1}}"#,
        #"{"action":{"client":"c","seq":1,"action":}}"#,
        #"{"action":{"client":"c","seq":1,"action":1}} x"#,
        #"{"action":{"client":"c","seq":1,"action":1},"hello":{}}"#,
        #"{"hello":{"client":"c","seq":1,"action":1}}"#,
        #"{"action":{"client":"c","seq":1,"action":"unterminated}}"#,
        "",
    ])
    func refused(_ text: String) {
        #expect(scan(text) == nil)
    }

    @Test("on 20,000 mutated frames, a yes is always what the strict reader reads")
    func agreesWithTheStrictReader() throws {
        let base = Array(#"{"action":{"action":{"todo":{"add":{"text":"a \"b\" {c}"}}},"client":"c-1","seq":42}}"#.utf8)
        let alphabet = Array(#"{}[]",:0123456789-.eE "\atrue"#.utf8)
        var random = SeededRandom(seed: 20261123)
        var agreed = 0
        for _ in 0 ..< 20000 {
            var bytes = base
            for _ in 0 ... random.next() % 3 {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
                }
            }
            guard let plain = PlainActionFrame.scan(bytes), let quick = try? JSONParser().parse(bytes[plain.action]) else { continue }
            let strict = try? WireJSON.decode(ClientMessage<JSONValue>.self, from: bytes)
            guard case let .action(request)? = strict, request.seq == plain.seq, request.action == quick else {
                Issue.record("quick yes, strict \(String(describing: strict)): \(String(decoding: bytes, as: UTF8.self))")
                return
            }
            agreed += 1
        }
        #expect(agreed > 1000)
    }
}
