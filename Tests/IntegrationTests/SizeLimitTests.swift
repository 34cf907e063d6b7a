import ActorNode
import Testing
import Wire

/// Sizes are bytes, checked before anything scans: a huge text is refused at once by its size,
/// whatever it looks like to a person, and the single writer is never held by one.
@Suite("Sizes in bytes")
struct SizeLimitTests {
    @Test("one 'character' of millions of combining marks is refused by its size, pipelined six times, while others are served", .timeLimit(.minutes(2)))
    func hugeGraphemes() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        // "a" and 7,000,000 combining acute accents: one grapheme cluster, 14,000,001 bytes.
        let text = "a" + String(repeating: "\u{301}", count: 7_000_000)
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        var bytes: [UInt8] = []
        for seq in 1 ... 6 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"huge","seq":\#(seq),"action":{"add":{"text":"\#(text)"}}}}"#.utf8))
        }
        let sender = Task { try await client.sendBytes(bytes) }
        // Meanwhile another client is served.
        #expect(try await sandbox.client("send", "add", "small").status == 0)
        try await sender.value
        for seq in 1 ... 6 {
            let answer = try await client.receive(timeout: .seconds(60))
            #expect(answer?["reject", "seq"]?.intValue == Int64(seq), "\(String(describing: answer))")
            #expect(answer?["reject", "code"]?.stringValue == "invalid_text")
            #expect(answer?["reject", "message"]?.stringValue == "item text is 14000001 bytes of UTF-8; the limit is 4000 bytes (and 1000 characters)")
        }
        let state = try await sandbox.client("state", "--json")
        #expect(state.output.hasPrefix(#"{"counter""#) && state.output.contains(#""revision":1,"#), "\(state.output.prefix(300))")
    }

    @Test("hello names and client ids have byte limits", .timeLimit(.minutes(1)))
    func helloLimits() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        let long = String(repeating: "é", count: 65) // 130 bytes
        for (hello, expected) in [
            (#"{"hello":{"protocol":1,"role":"script","client":"\#(long)","name":"n"}}"#, "the client id must be 1 to 128 bytes of UTF-8; this one is 130"),
            (#"{"hello":{"protocol":1,"role":"script","client":"","name":"n"}}"#, "the client id must be 1 to 128 bytes of UTF-8; this one is 0"),
            (#"{"hello":{"protocol":1,"role":"script","client":"c","name":"\#(String(repeating: "n", count: 257))"}}"#, "the name must be at most 256 bytes of UTF-8; this one is 257"),
        ] {
            let client = try RawClient.connect(sandbox.socket)
            defer { client.close() }
            try await client.send(hello)
            let messages = try await client.receiveAll()
            #expect(messages.count == 1)
            #expect(messages.first?["error", "code"]?.stringValue == "bad_frame")
            #expect(messages.first?["error", "message"]?.stringValue?.hasSuffix(expected) == true, "\(messages)")
        }
    }

    @Test("seq starts at 1: 0 is refused", .timeLimit(.minutes(1)))
    func seqZero() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        try await client.send(#"{"action":{"client":"z","seq":0,"action":"clear"}}"#)
        let messages = try await client.receiveAll()
        #expect(messages.map { $0.messageType ?? "?" } == ["welcome", "error"])
        #expect(messages.last?["error", "message"]?.stringValue?.contains("seq must be a whole number from 1 to 9223372036854775807; this one is 0") == true, "\(messages)")
    }
}
