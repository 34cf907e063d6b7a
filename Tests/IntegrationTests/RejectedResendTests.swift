import ActorNode
import Testing
import Wire

/// A rejected action is not remembered: sent again with the same seq it is looked at again
/// (PROTOCOL section 5, exactly once), and a client that lost its connection sends its
/// unanswered actions again safely. So `stale_sequence` is for a seq older than what the ledger
/// has had to forget (a client's last 1024 applied actions are kept), never for one rejected
/// before the client's first applied action. Found by the protocol model (seeds 162, 164 and
/// 225: a client whose first action was rejected and whose second was applied drops its
/// connection, resends both, and has the first answered with `stale_sequence`).
@Suite("Resending a rejected action")
struct RejectedResendTests {
    @Test("rejected as #1, then #2 applied: #1 sent again is looked at again, not stale", .timeLimit(.minutes(1)))
    func rejectedFirstActionIsLookedAtAgain() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"resender","name":"resender"}}"#)
        #expect(try await client.receive()?.messageType == "welcome")

        // #1 names an item that does not exist yet; #2 adds it.
        try await client.send(#"{"action":{"client":"resender","seq":1,"action":{"toggle":{"id":1}}}}"#)
        #expect(try await client.receive()?["reject", "code"]?.stringValue == "unknown_item")
        try await client.send(#"{"action":{"client":"resender","seq":2,"action":{"add":{"text":"milk"}}}}"#)
        #expect(try await client.receive()?["ack", "revision"]?.intValue == 1)

        // #1 again: not applied before, so it is applied now that item 1 exists.
        try await client.send(#"{"action":{"client":"resender","seq":1,"action":{"toggle":{"id":1}}}}"#)
        let answer = try await client.receive()
        #expect(answer?["ack", "seq"]?.intValue == 1 && answer?["ack", "revision"]?.intValue == 2, "\(String(describing: answer))")
        // And #2 again gets its first revision.
        try await client.send(#"{"action":{"client":"resender","seq":2,"action":{"add":{"text":"milk"}}}}"#)
        #expect(try await client.receive()?["ack", "revision"]?.intValue == 1)
    }

    @Test("a lost connection: #1 (rejected) and #2 (applied) sent again on a new one; #1 is looked at again", .timeLimit(.minutes(1)))
    func resendAfterALostConnection() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        let hello = #"{"hello":{"protocol":1,"role":"script","client":"lost","name":"lost"}}"#
        let first = #"{"action":{"client":"lost","seq":1,"action":{"add":{"text":" "}}}}"#
        let second = #"{"action":{"client":"lost","seq":2,"action":{"add":{"text":"bread"}}}}"#

        // Both sent, the connection lost before the answers are read.
        let lost = try RawClient.connect(sandbox.socket)
        try await lost.sendBytes(try Frame.encode(Array(hello.utf8)) + Frame.encode(Array(first.utf8)) + Frame.encode(Array(second.utf8)))
        #expect(try await lost.receive()?.messageType == "welcome")
        lost.close()
        try await eventually("the core applied #2") {
            let state = try await sandbox.client("state", "--json")
            return state.output.contains(#""revision":1,"#)
        }

        // Again, with the same client id and seqs, as PROTOCOL section 9 says.
        let again = try RawClient.connect(sandbox.socket)
        defer { again.close() }
        try await again.sendBytes(try Frame.encode(Array(hello.utf8)) + Frame.encode(Array(first.utf8)) + Frame.encode(Array(second.utf8)))
        #expect(try await again.receive()?.messageType == "welcome")
        let answerToFirst = try await again.receive()
        #expect(answerToFirst?["reject", "code"]?.stringValue == "empty_text", "#1 is looked at again and rejected for its text, as the first time: \(String(describing: answerToFirst))")
        let answerToSecond = try await again.receive()
        #expect(answerToSecond?["ack", "revision"]?.intValue == 1, "#2 gets its first revision: \(String(describing: answerToSecond))")
    }
}
