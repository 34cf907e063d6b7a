import ActorNode
import Glibc
import Testing

/// Running out of file descriptors is said once, with the numbers, and once more when it is
/// over; the clients already attached are served all along.
@Suite("Out of descriptors")
struct DescriptorShortageTests {
    @Test("under ulimit -n 64: one line when accepting fails, one when it recovers, attached clients served", .timeLimit(.minutes(1)))
    func shortage() async throws {
        let sandbox = try Sandbox()
        let core = try sandbox.start(
            executable: "/bin/sh", name: "limited-core",
            // The clients that wait never say hello: with the usual 10 s handshake, a busy
            // machine slow to get through this test sees them let go, others accepted, and
            // the limit reached again, which is not what this test is about.
            ["-c", "ulimit -n 64; exec \"$0\" \"$@\"", Binary.coreDaemon.path, "--socket", sandbox.socket, "--handshake-timeout", "600"])
        await eventually("the core serves") { UnixSocket.isServing(sandbox.socket) }
        // More connections than the core has descriptors for; the first ones are accepted.
        var clients: [RawClient] = []
        defer { for client in clients { client.close() } }
        for _ in 0 ..< 80 { clients.append(try RawClient.connect(sandbox.socket)) }
        await eventually("the core says it cannot accept") { core.errorOutput.contains("cannot accept connections") }
        // A client attached before the shortage is still served.
        let first = clients[0]
        try await first.hello(role: "script")
        #expect(try await first.receive()?.messageType == "welcome")
        try await first.send(#"{"action":{"client":"c","seq":1,"action":{"add":{"text":"during"}}}}"#)
        #expect(try await first.receive()?["ack", "revision"]?.intValue == 1)
        try await Task.sleep(for: .milliseconds(500))
        // Once when it starts failing (not every 100 ms while it does); if a descriptor came
        // free for a moment meanwhile, the recovery and the next failure are said too.
        let said = core.errorOutput.components(separatedBy: "cannot accept connections").count - 1
        let recovered = core.errorOutput.components(separatedBy: "accepting connections again").count - 1
        #expect(said == recovered + 1 && said <= 2, "said \(said) times, recovered \(recovered) times: \(core.errorOutput)")
        #expect(core.errorOutput.contains(" clients connected use what this process may have of its 64 file descriptors ('ulimit -n'), less 16 it keeps for itself; "), "\(core.errorOutput)")
        for client in clients.dropFirst() { client.close() }
        clients = [first]
        await eventually("the core says it accepts again") { core.errorOutput.contains("accepting connections again") }
        let state = try await sandbox.client("state")
        #expect(state.output.contains("during"), "\(state)")
        #expect(core.process.termination == nil)
    }
}
