import ActorNode
import Glibc
import Testing
import Wire

/// Garbage on the socket: every bad client gets an error frame (while it is still there) and
/// is closed; the core keeps serving everyone else.
@Suite("Bad input on the socket")
struct BadInputTests {
    @Test("garbage, absurd lengths, bad JSON, frames before hello and wrong versions are refused; others are unaffected")
    func garbage() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let watcher = try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket])
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }

        func errorCode(after send: (RawClient) async throws -> Void) async throws -> (String?, String?) {
            let client = try RawClient.connect(sandbox.socket)
            defer { client.close() }
            try await send(client)
            let messages = try await client.receiveAll()
            // An error frame (possibly after a welcome), then the core closes the connection.
            let error = messages.last { $0.messageType == "error" }
            return (error?["error", "code"]?.stringValue, error?["error", "message"]?.stringValue)
        }

        // An HTTP request: its first 4 bytes read as a length of about 1.2 GB.
        let (http, httpMessage) = try await errorCode { try await $0.sendBytes(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
        #expect(http == "frame_too_large")
        #expect(httpMessage?.contains("1195725856") == true)

        let (absurd, _) = try await errorCode { try await $0.sendBytes([0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3]) }
        #expect(absurd == "frame_too_large")

        let (badJSON, badJSONMessage) = try await errorCode { client in
            try await client.hello()
            try await client.send("{not json")
        }
        #expect(badJSON == "bad_frame")
        #expect(badJSONMessage == "a frame is not a valid message: unexpected 'not' at byte 1; expected a string (an object's key) or '}'")

        let (unknownType, _) = try await errorCode { try await $0.send(#"{"shout":{"text":"hi"}}"#) }
        #expect(unknownType == "bad_frame")

        let (negativeSeq, negativeSeqMessage) = try await errorCode { client in
            try await client.hello()
            try await client.send(#"{"action":{"client":"x","seq":-1,"action":"clear"}}"#)
        }
        #expect(negativeSeq == "bad_frame")
        #expect(negativeSeqMessage == "a frame is not a valid message: at action.seq: seq must be a whole number from 1 to 9223372036854775807 (the number -1 does not fit its field (expected a whole number in range))")

        let (beforeHello, _) = try await errorCode { try await $0.send(#"{"action":{"client":"x","seq":1,"action":{"clear":{}}}}"#) }
        #expect(beforeHello == "hello_required")

        let (version, versionMessage) = try await errorCode { try await $0.hello(protocolVersion: 2) }
        #expect(version == "version_mismatch")
        #expect(versionMessage?.contains("protocol 1") == true && versionMessage?.contains("speaks 2") == true)

        let (secondHello, _) = try await errorCode { client in
            try await client.hello()
            try await client.hello()
        }
        #expect(secondHello == "unexpected_message")

        // A frame cut off by the client closing: nothing to answer, the core just lets it go.
        let truncated = try RawClient.connect(sandbox.socket)
        try await truncated.sendBytes([0, 0, 0, 50] + Array(#"{"hello":"#.utf8))
        truncated.close()

        // An invalid action inside a sound envelope is a reject; the connection stays open.
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        try await client.send(#"{"action":{"client":"raw","seq":1,"action":{"add":{"txt":"typo"}}}}"#)
        let reject = try await client.receive()
        #expect(reject?["reject", "code"]?.stringValue == "invalid_action")
        #expect(reject?["reject", "seq"]?.intValue == 1)
        #expect(reject?["reject", "message"]?.stringValue?.contains(#"missing "text""#) == true)
        try await client.send(#"{"action":{"client":"raw","seq":2,"action":{"toggle":{"id":1.5}}}}"#)
        let fraction = try await client.receive()
        #expect(fraction?["reject", "code"]?.stringValue == "invalid_action")
        #expect(fraction?["reject", "message"]?.stringValue == "at toggle.id: the number 1.5 does not fit its field (expected a whole number in range)")
        try await client.send(#"{"action":{"client":"raw","seq":3,"action":{"add":{"text":"still here"}}}}"#)
        #expect(try await client.receive()?["ack", "revision"]?.intValue == 1)

        // Everyone else was served throughout.
        #expect(try await sandbox.client("send", "add", "after the garbage").status == 0)
        await eventually("the watcher sees both items") { watcher.output.contains("after the garbage") }
        #expect(core.process.termination == nil, "the core must survive bad clients")
        #expect(core.errorOutput.contains("frame of 1195725856 bytes refused"))
    }
}
