import ActorNode
import Testing
import Wire

/// What clients say reaches the log escaped and cut short: no forged lines, no terminal
/// escapes, no flood.
@Suite("The log cannot be forged or flooded")
struct LogHygieneTests {
    @Test("a hello name with a newline and escapes is logged on one line, escaped", .timeLimit(.minutes(1)))
    func forgedLine() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let forged = "x\n2026-01-01T00:00:00.000Z core-daemon[1]: stopped at revision 0\u{1b}[2J"
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.send(#"{"hello":{"protocol":1,"role":"shell","client":"c\u0007","name":\#(try WireJSON.string(forged))}}"#)
        #expect(try await client.receive()?.messageType == "welcome")
        await eventually("the attach is logged") { core.errorOutput.contains("attached shell") }
        let log = core.errorOutput
        #expect(log.contains(#"attached shell 'x\n2026-01-01T00:00:00.000Z core-daemon[1]: stopped at revision 0\x1b[2J' (client c\x07, pid "#), "\(log)")
        #expect(!log.contains("\u{1b}") && !log.contains("\u{07}"))
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-01-01") })
    }

    @Test("huge unknown message names and bad frames log a few hundred bytes each", .timeLimit(.minutes(1)))
    func flood() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let huge = String(repeating: "\u{1b}A", count: 30_000)
        for _ in 0 ..< 50 {
            let client = try RawClient.connect(sandbox.socket)
            try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"flood","name":"flood"}}"#)
            try await client.send(#"{"\#(huge)":{}}"#)
            let messages = try await client.receiveAll()
            #expect(messages.last?["error", "code"]?.stringValue == "bad_frame")
            #expect((messages.last?["error", "message"]?.stringValue?.utf8.count ?? .max) < 1000)
            client.close()
        }
        await eventually("every bad frame is logged") { core.errorOutput.components(separatedBy: "bad frame").count > 50 }
        let lines = core.errorOutput.split(separator: "\n")
        let longest = lines.map(\.utf8.count).max() ?? 0
        #expect(longest < 600, "a log line of \(longest) bytes")
        #expect(core.errorOutput.utf8.count < 50 * 600 + 10_000)
        #expect(!core.errorOutput.contains("\u{1b}"))
    }
}
