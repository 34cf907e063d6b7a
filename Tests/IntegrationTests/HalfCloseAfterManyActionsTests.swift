import ActorNode
import Testing
import Wire

/// A client that pipelines more actions than the core takes at once (512 answers owed, PROTOCOL
/// section 2, reading back-pressure) and then half-closes gets every answer (section 9): the
/// end of its stream comes after its last whole frame, so the frames the core holds back until
/// it has answered the first ones are still actions, not a truncated frame. Found by the
/// protocol model (seed 339: a shell pipelined 516 actions and half-closed; it got 512 answers,
/// then `truncated_frame` "the stream ended inside a frame (341 of 81 bytes received)", and its
/// last four actions were never applied).
@Suite("Half close after a long pipeline")
struct HalfCloseAfterManyActionsTests {
    @Test("hello and 600 adds in one write, then a half close: 600 acks, no error", .timeLimit(.minutes(1)))
    func everyActionIsAnswered() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"script","client":"pipeliner","name":"pipeliner"}}"#.utf8))
        for seq in 1 ... 600 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"pipeliner","seq":\#(seq),"action":{"add":{"text":"item \#(seq)"}}}}"#.utf8))
        }
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.sendBytes(bytes)
        await client.connection.drain(timeout: .seconds(10))
        client.connection.shutdownWriting()

        var acks = 0
        var others: [String] = []
        for message in try await client.receiveAll(timeout: .seconds(20)) {
            switch message.messageType {
            case "welcome": break
            case "ack": acks += 1
            default: others.append((try? WireJSON.string(message)) ?? "?")
            }
        }
        #expect(acks == 600, "\(acks) of 600 actions acknowledged")
        #expect(others.isEmpty, "\(others.prefix(3))")
        let state = try await sandbox.client("state", "--json")
        #expect(state.output.contains(#""revision":600,"#), "every action applied: \(state.output.prefix(80))")
    }
}
