import ActorNode
import Testing
import Wire

/// An error never overtakes what the core owes a client: the welcome, then the answer to every
/// action that came before the bad frame, then the error, then the close.
@Suite("Errors come last")
struct ErrorOrderTests {
    @Test("hello, an action, a bad frame: welcome, ack, error, close", .timeLimit(.minutes(1)),
          arguments: [
              ("not JSON", Array("{not json".utf8), "bad_frame"),
              ("a second hello", Array(#"{"hello":{"protocol":1,"role":"script","client":"again","name":"again"}}"#.utf8), "unexpected_message"),
              ("an unknown message", Array(#"{"shout":{}}"#.utf8), "bad_frame"),
          ])
    func errorAfterOwed(name: String, bad: [UInt8], code: String) async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        for round in 0 ..< 20 {
            let client = try RawClient.connect(sandbox.socket)
            defer { client.close() }
            // All in one write, so the bad frame is read in the same breath as the action.
            var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"script","client":"order-\#(round)","name":"order"}}"#.utf8))
            bytes += try Frame.encode(Array(#"{"action":{"client":"order-\#(round)","seq":1,"action":{"add":{"text":"owed \#(round)"}}}}"#.utf8))
            bytes += try Frame.encode(bad)
            try await client.sendBytes(bytes)
            let messages = try await client.receiveAll()
            #expect(messages.map { $0.messageType ?? "?" } == ["welcome", "ack", "error"], "\(name), round \(round): \(messages)")
            #expect(messages.last?["error", "code"]?.stringValue == code, "\(name): \(messages)")
            #expect(messages.dropLast().last?["ack", "revision"]?.intValue == Int64(round + 1), "\(name): \(messages)")
        }
    }

    @Test("a frame too large after actions: every ack, then frame_too_large", .timeLimit(.minutes(1)))
    func tooLargeAfterActions() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--max-frame", "4096"])
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"script","client":"big","name":"big"}}"#.utf8))
        for seq in 1 ... 50 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"big","seq":\#(seq),"action":{"add":{"text":"item \#(seq)"}}}}"#.utf8))
        }
        bytes += [0, 0, 0x10, 0x01] // announces 4097 bytes
        try await client.sendBytes(bytes)
        let messages = try await client.receiveAll()
        #expect(messages.first?.messageType == "welcome")
        let acks = messages.filter { $0.messageType == "ack" }.compactMap { $0["ack", "seq"]?.intValue }
        #expect(acks == Array(1 ... 50), "\(messages.count) messages")
        #expect(messages.last?["error", "code"]?.stringValue == "frame_too_large")
    }
}
