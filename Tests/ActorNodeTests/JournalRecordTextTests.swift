import Testing
@testable import ActorNode
import Wire

/// The journal record the engine writes by hand is the one the wire's encoder writes.
@Suite("Journal records written by hand")
struct JournalRecordTextTests {
    @Test("any action text, time, client, revision and sequence number: the same bytes as encoding the entry")
    func sameAsEncoding() throws {
        var random = SystemRandomNumberGenerator()
        let actions: [JSONValue] = [
            .object(["counter": .string("increment")]),
            .object(["add": .object(["text": .string("a \"quoted\" é 😀 \\ /")])]),
            .integer(-3), .double(1.5), .array([.null, .bool(true)]),
        ]
        let clients = ["c", "9f1b2c3d-0000-4000-8000-1234567890ab", "a\"b\\c\u{1}"]
        let revisions: [UInt64] = [0, 1, 9, 10, 99, 12345, 999_999_999_999, UInt64(Int64.max)]
        for _ in 0 ..< 500 {
            let action = actions.randomElement(using: &random)!
            let at = [0, 1_763_938_123.123456, Double.random(in: 0 ... 2e9, using: &random), 1e-7].randomElement(using: &random)!
            let client = clients.randomElement(using: &random)!
            let revision = revisions.randomElement(using: &random)!
            let seq = revisions.randomElement(using: &random)!
            let actionText = try WireJSON.encode(action)
            let written = JournalRecordText.entry(action: actionText[...], at: at, client: JSONFragment.string(client), revision: revision, seq: seq)
            let encoded = try WireJSON.encode(JournalEntry<JSONValue>(revision: revision, at: at, client: client, seq: seq, action: action))
            #expect(written == encoded, "\(String(decoding: written, as: UTF8.self)) vs \(String(decoding: encoded, as: UTF8.self))")
        }
    }
}
