import ActorNode
import Glibc
import Testing
import Wire

/// "Rendition before ack" (PROTOCOL section 6) holds on a connection that ends in the same
/// write that sent its actions: the session's end never costs a shell the rendition of its own
/// revision, whether it was keeping up or had fallen behind.
@Suite("The end of a session keeps rendition before ack")
struct SessionEndOrderTests {
    /// What a shell read, in order: `welcome R`, `rendition R`, `snapshot R`, `ack R`, `bye`...
    private static func trace(_ messages: [JSONValue]) -> [String] {
        messages.map { message in
            switch message.messageType {
            case "welcome": return "welcome \(message["welcome", "revision"]?.intValue ?? -1)"
            case "rendition":
                let kind = message["rendition", "snapshot"] == nil ? "rendition" : "snapshot"
                return "\(kind) \(message["rendition", "revision"]?.intValue ?? -1)"
            case "ack": return "ack \(message["ack", "revision"]?.intValue ?? -1)"
            default: return message.messageType ?? "?"
            }
        }
    }

    /// Whether every ack of revision R comes after a welcome, rendition or snapshot at R or
    /// later.
    private static func renditionsPrecedeAcks(_ messages: [JSONValue]) -> Bool {
        var known: Int64 = -1
        for message in messages {
            switch message.messageType {
            case "welcome": known = message["welcome", "revision"]?.intValue ?? known
            case "rendition": known = max(known, message["rendition", "revision"]?.intValue ?? known)
            case "ack": if (message["ack", "revision"]?.intValue ?? .max) > known { return false }
            default: break
            }
        }
        return true
    }

    @Test("hello, an action and bye in one write: welcome, the rendition, then the ack", .timeLimit(.minutes(1)))
    func helloActionByeInOneWrite() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"shell","client":"one-write","name":"one write"}}"#.utf8))
        bytes += try Frame.encode(Array(#"{"action":{"client":"one-write","seq":1,"action":{"add":{"text":"milk"}}}}"#.utf8))
        bytes += try Frame.encode(Array(#"{"bye":{}}"#.utf8))
        try await client.sendBytes(bytes)
        let messages = try await client.receiveAll()
        #expect(Self.trace(messages) == ["welcome 0", "rendition 1", "ack 1"], "\(Self.trace(messages))")
    }

    @Test("a shell that fell behind and ends its session gets a snapshot before its held acks", .timeLimit(.minutes(1)))
    func laggingShellEndingInOneWrite() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        // Items long enough that the renditions of a few hundred adds pass the 64 KiB at which
        // a shell that has not read them falls behind.
        let text = String(repeating: "x", count: 400)
        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"shell","client":"behind","name":"behind"}}"#.utf8))
        for seq in 1 ... 400 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"behind","seq":\#(seq),"action":{"add":{"text":"\#(text) \#(seq)"}}}}"#.utf8))
        }
        bytes += try Frame.encode(Array(#"{"bye":{}}"#.utf8))
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.sendBytes(bytes)
        let messages = try await client.receiveAll()
        let acks = messages.filter { $0.messageType == "ack" }
        #expect(acks.count == 400, "every action is answered: \(acks.count) acks")
        let ordered = Self.renditionsPrecedeAcks(messages)
        #expect(ordered, "an ack came before its rendition: \(Self.trace(messages).suffix(12))")
    }
}
