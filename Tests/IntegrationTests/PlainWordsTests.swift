import ActorNode
import Testing
import Wire

/// What the core refuses, it refuses in words a person can act on; and JSON that clients in
/// other languages would read differently (a key named twice) is refused, not guessed at.
@Suite("Refusals in plain words")
struct PlainWordsTests {
    @Test("invalid UTF-8, a key named twice, an unknown role: bad_frame saying what is wrong and where", .timeLimit(.minutes(1)))
    func refusals() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let hello = Array(#"{"hello":{"protocol":1,"role":"script","client":"words","name":"words"}}"#.utf8)
        let cases: [(name: String, frames: [[UInt8]], message: String)] = [
            ("invalid UTF-8 in an item's text", [hello, Array(#"{"action":{"client":"words","seq":1,"action":{"add":{"text":""#.utf8) + [0xff] + Array(#""}}}}"#.utf8)],
             "a frame is not a valid message: the text is not valid UTF-8 (byte 0xff at offset 61)"),
            ("a key named twice in the envelope", [hello, Array(#"{"action":{"client":"words","seq":1,"seq":2,"action":"clear"}}"#.utf8)],
             #"a frame is not a valid message: duplicate key "seq" in an object (at byte 36)"#),
            ("a key named twice in an action", [hello, Array(#"{"action":{"client":"words","seq":1,"action":{"add":{"text":"a","text":"b"}}}}"#.utf8)],
             #"a frame is not a valid message: duplicate key "text" in an object (at byte 64)"#),
            ("an unknown role", [Array(#"{"hello":{"protocol":1,"role":"admin","client":"w","name":"w"}}"#.utf8)],
             "a frame is not a valid message: at hello.role: unknown role 'admin' (expected one of shell, watcher, script)"),
        ]
        for (name, frames, message) in cases {
            let client = try RawClient.connect(sandbox.socket)
            defer { client.close() }
            try await client.sendBytes(frames.flatMap { try Frame.encode($0) })
            let messages = try await client.receiveAll()
            let error = messages.last
            #expect(error?["error", "code"]?.stringValue == "bad_frame", "\(name): \(messages)")
            #expect(error?["error", "message"]?.stringValue == message, "\(name): \(messages)")
        }
        // None of them changed anything.
        let state = try await sandbox.client("state", "--json")
        #expect(state.output.contains(#""revision":0"#), "\(state)")
        #expect(core.process.termination == nil)
    }
}
