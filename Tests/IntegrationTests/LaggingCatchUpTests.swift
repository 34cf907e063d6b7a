import ActorNode
import Glibc
import Testing
import Wire

/// A shell that fell behind catches up once it has read what waited for it (PROTOCOL section
/// 7.2), also on a quiet core where nothing new is ever sent: the catch-up waits for its
/// socket to drain, not for more output.
@Suite("Catching up on a quiet core")
struct LaggingCatchUpTests {
    @Test("400 adds pipelined with hello on a core holding 400 items: all 400 answered, each after its rendition", .timeLimit(.minutes(1)))
    func pipelinedShellIsAnsweredOnAQuietCore() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        let text = String(repeating: "y", count: 200)
        let adds = (1 ... 400).map { #"{"add":{"text":"\#(text) \#($0)"}}"# }.joined(separator: "\n") + "\n"
        let seeded = try await sandbox.run(.shellClient, ["send", "-", "--socket", sandbox.socket], input: adds)
        #expect(seeded.status == 0, "\(seeded)")

        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"shell","client":"pipeliner","name":"pipeliner"}}"#.utf8))
        for seq in 1 ... 400 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"pipeliner","seq":\#(seq),"action":{"add":{"text":"\#(text) again \#(seq)"}}}}"#.utf8))
        }
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.sendBytes(bytes)
        var known: Int64 = -1
        var acked = Set<Int64>()
        var early: [String] = []
        while acked.count < 400 {
            // Nobody else sends anything: every answer must come without help.
            let next: JSONValue?
            do {
                next = try await client.receive(timeout: .seconds(10))
            } catch is RawClientTimeout {
                break
            }
            guard let message = next else { break }
            switch message.messageType {
            case "welcome": known = message["welcome", "revision"]?.intValue ?? known
            case "rendition": known = max(known, message["rendition", "revision"]?.intValue ?? known)
            case "ack":
                let revision = message["ack", "revision"]?.intValue ?? -1
                if revision > known { early.append("ack \(revision) after revision \(known)") }
                acked.insert(message["ack", "seq"]?.intValue ?? -1)
            default: break
            }
        }
        #expect(acked.count == 400, "\(acked.count) of 400 actions answered")
        #expect(early.isEmpty, "acks before their renditions: \(early.prefix(5))")
    }
}
