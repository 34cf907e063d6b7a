import ActorNode
import Glibc
import Testing
import Wire

/// An input that crashes the core costs one crash, not an outage (DESIGN principle 8): under
/// `cama-launch`, a core whose reducer traps (`TrapCore`, a fixture) is restarted once, and
/// the action that crashed it, resent by its client or sent again by anyone, is refused with
/// `crashed_core` from then on while everything else is served.
@Suite("A poisoned action costs one crash")
struct CrashQuarantineTests {
    private func startLauncher(_ sandbox: Sandbox) async throws -> Started {
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket, "--core", Binary.trapCore.path])
        await eventually("the launcher's core serves") { await corePid(sandbox.socket) != nil }
        return launcher
    }

    /// How many times the launcher saw its core end and restarted it.
    private func restarts(_ launcher: Started) -> Int {
        launcher.errorOutput.components(separatedBy: "; restarting in ").count - 1
    }

    @Test("a shell resends the action that crashed the core: one crash, then crashed_core, and the core serves on", .timeLimit(.minutes(1)))
    func resentActionIsRefused() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        let first = try #require(await corePid(sandbox.socket))

        // A client that keeps its id and resends what it was not answered, as shells do.
        var connection = try await connect(sandbox.socket, id: "resender")
        try await connection.send(#"{"action":{"client":"resender","seq":1,"action":{"add":{"text":"trap"}}}}"#)
        // (The runtime's backtrace of the crash takes a while on a busy machine.)
        #expect(try await connection.receiveAll(timeout: .seconds(60)).isEmpty, "the core crashed without answering")
        connection.close()
        await eventually("the launcher restarts the core", timeout: .seconds(60)) { await corePid(sandbox.socket).map { $0 != first } ?? false }

        connection = try await connect(sandbox.socket, id: "resender")
        defer { connection.close() }
        try await connection.send(#"{"action":{"client":"resender","seq":1,"action":{"add":{"text":"trap"}}}}"#)
        let refused = try await connection.receive()
        #expect(refused?["reject", "seq"]?.intValue == 1)
        #expect(refused?["reject", "code"]?.stringValue == "crashed_core")
        #expect(refused?["reject", "message"]?.stringValue == "this action crashed the core and was not applied")
        // The same action under a new seq, and from another client: refused too.
        try await connection.send(#"{"action":{"client":"resender","seq":2,"action":{"add":{"text":"trap"}}}}"#)
        #expect(try await connection.receive()?["reject", "code"]?.stringValue == "crashed_core")
        let again = try await sandbox.client("send", "add", "trap")
        #expect(again.status == 1)
        #expect(again.error == "shell-client: rejected: this action crashed the core and was not applied (crashed_core)\n")
        // Everything else is applied, by the same client too.
        try await connection.send(#"{"action":{"client":"resender","seq":3,"action":{"add":{"text":"fine"}}}}"#)
        #expect(try await connection.receive()?["ack", "revision"]?.intValue == 1)
        #expect(try await sandbox.client("send", "add", "also fine").status == 0)

        #expect(restarts(launcher) == 1, "\(launcher.errorOutput)")
        #expect(launcher.process.termination == nil)
        // Said once, with the client and the action.
        let said = launcher.errorOutput.split(separator: "\n").filter { $0.contains("the last run crashed") }
        #expect(said.count == 1)
        #expect(said.first?.contains(#"the last run crashed (SIGILL) on action {"add":{"text":"trap"}} from client resender #1; it is refused from now on (crashed_core)"#) == true, "\(said)")
        let check = try await sandbox.run(.trapCore, ["--check"])
        #expect(check.output.contains(#"refused for having crashed the core: action {"add":{"text":"trap"}} from client resender #1"#), "\(check)")
    }

    @Test("an effect's action that crashed the core is dropped: the client's action is applied when resent, once", .timeLimit(.minutes(1)))
    func effectActionIsDropped() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        // `send` resends across the restart with the same client and seq.
        let sent = try await sandbox.run(.shellClient, ["send", "add", "trap later", "--socket", sandbox.socket, "--timeout", "20"])
        #expect(sent.status == 0, "\(sent)")
        let state = try await sandbox.client("state", "--json")
        let value = try WireJSON.decode(JSONValue.self, from: Array(state.output.utf8))
        #expect(value["revision"]?.intValue == 1, "applied once, its effect's action never: \(state.output)")
        #expect(value["counter", "value"]?.intValue == 0)
        #expect(restarts(launcher) == 1, "\(launcher.errorOutput)")
        #expect(launcher.errorOutput.contains(#"dropped an action of the core's own that crashed it before: action {"counter":{"set":{"value":-1}}} of the core's own (an effect's)"#), "\(launcher.errorOutput)")
    }

    @Test("an action read the general way (an escape in its envelope) is known by its frame, and refused after the crash", .timeLimit(.minutes(1)))
    func generalPathActionIsRefused() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        let first = try #require(await corePid(sandbox.socket))
        // "\u0067" is "g": the envelope is not the plain form the fast reader takes.
        let frame = #"{"action":{"client":"\u0067eneral","seq":1,"action":{"add":{"text":"trap"}}}}"#
        var connection = try await connect(sandbox.socket, id: "general")
        try await connection.send(frame)
        // (The runtime's backtrace of the crash takes a while on a busy machine.)
        #expect(try await connection.receiveAll(timeout: .seconds(60)).isEmpty, "the core crashed without answering")
        connection.close()
        await eventually("the launcher restarts the core", timeout: .seconds(60)) { await corePid(sandbox.socket).map { $0 != first } ?? false }
        connection = try await connect(sandbox.socket, id: "general")
        defer { connection.close() }
        try await connection.send(frame)
        #expect(try await connection.receive()?["reject", "code"]?.stringValue == "crashed_core")
        #expect(try await sandbox.client("send", "add", "trap").status == 1)
        #expect(restarts(launcher) == 1, "\(launcher.errorOutput)")
    }

    /// A script's connection, welcomed.
    private func connect(_ socket: String, id: String) async throws -> RawClient {
        let client = try RawClient.connect(socket)
        try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"\#(id)","name":"resending test client"}}"#)
        let welcome = try await client.receive()
        #expect(welcome?.messageType == "welcome", "\(String(describing: welcome))")
        return client
    }
}
