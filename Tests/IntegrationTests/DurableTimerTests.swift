import ActorNode
import Glibc
import Testing
import Wire

/// A durable timer (the poll's `close --in`) across a SIGKILL at the moments that matter after
/// the two `PollAppTests` covers (before the deadline, and a deadline passed while no core ran):
/// just after it fired, its firing is journaled, so the next core does not fire it again; after
/// it was cancelled, the next core does not re-arm it.
@Suite("Durable timers")
struct DurableTimerTests {
    private func poll(_ sandbox: Sandbox, _ arguments: String...) async throws -> Finished {
        try await sandbox.run(.pollShell, arguments + ["--socket", sandbox.socket, "--timeout", "30"])
    }

    private func state(_ sandbox: Sandbox) async throws -> JSONValue {
        try WireJSON.decode(JSONValue.self, from: Array(try await poll(sandbox, "state", "--json").output.utf8))
    }

    /// A poll core on the sandbox's state directory, serving: a pizza is proposed, and
    /// `close --in SECONDS` sent (and any more words after it).
    private func closing(_ sandbox: Sandbox, in seconds: Int, then more: [String]? = nil) async throws -> Started {
        let core = try sandbox.start(.pollCore, ["--socket", sandbox.socket, "--state-dir", sandbox.stateDirectory])
        await eventually("poll-core serves") { UnixSocket.isServing(sandbox.socket) }
        #expect(try await poll(sandbox, "send", "propose", "pizza").status == 0)
        #expect(try await poll(sandbox, "send", "close", "--in", "\(seconds)").status == 0)
        if let more { #expect(try await sandbox.run(.pollShell, ["send"] + more + ["--socket", sandbox.socket]).status == 0) }
        return core
    }

    /// Kills `core`, starts the next one on the same directory, and waits until it says what
    /// it recovered.
    private func restart(_ core: Started, _ sandbox: Sandbox) async throws -> Started {
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        let next = try sandbox.start(.pollCore, ["--socket", sandbox.socket, "--state-dir", sandbox.stateDirectory])
        await eventually("the next poll-core serves") { UnixSocket.isServing(sandbox.socket) }
        await eventually("the next core says what it recovered") { next.errorOutput.contains("recovered revision") }
        return next
    }

    /// The entries of `history --json` whose sender is the timer `close`.
    private func firings(_ sandbox: Sandbox) async throws -> Int {
        let history = try await poll(sandbox, "history", "--json")
        #expect(history.status == 0, "\(history)")
        return history.output.split(separator: "\n").filter { $0.contains(#""timer":"close""#) }.count
    }

    @Test("killed just after the timer fired: the next core recovers it as fired and does not fire it again", .timeLimit(.minutes(1)))
    func killedJustAfterFiring() async throws {
        let sandbox = try Sandbox()
        let core = try await closing(sandbox, in: 1)
        // A client is shown only what the journal holds: the firing is durable once seen.
        try await eventually("the timer fires") { try await state(sandbox)["closed"] == .bool(true) }
        let next = try await restart(core, sandbox)
        defer { next.process.send(SIGTERM) }
        #expect(next.errorOutput.contains("recovered revision 3 from 3 journal records\n"), "\(next.errorOutput)")
        #expect(!next.errorOutput.contains("durable timer"), "\(next.errorOutput)")
        #expect(try await state(sandbox)["revision"]?.intValue == 3)
        #expect(try await firings(sandbox) == 1)
        #expect(!next.errorOutput.contains("rejected"), "\(next.errorOutput)")
    }

    @Test("killed after the timer was cancelled: the next core does not re-arm it", .timeLimit(.minutes(1)))
    func killedAfterCancelling() async throws {
        let sandbox = try Sandbox()
        // Closing now cancels the timer.
        let core = try await closing(sandbox, in: 30, then: ["close"])
        let next = try await restart(core, sandbox)
        defer { next.process.send(SIGTERM) }
        #expect(next.errorOutput.contains("recovered revision 3 from 3 journal records\n"), "\(next.errorOutput)")
        #expect(!next.errorOutput.contains("durable timer"), "\(next.errorOutput)")
        // Nothing was re-armed to fire: no new revision, no firing in the history.
        #expect(try await state(sandbox)["revision"]?.intValue == 3)
        #expect(try await firings(sandbox) == 0)
        #expect(!next.errorOutput.contains("rejected"), "\(next.errorOutput)")
    }

    @Test("killed before the deadline: the next core says it re-arms the timer, which fires once", .timeLimit(.minutes(1)))
    func rearmedOnce() async throws {
        let sandbox = try Sandbox()
        // Ten seconds: the kill comes before the deadline even while the whole suite shares two
        // cores and a command can take seconds.
        let core = try await closing(sandbox, in: 10)
        let next = try await restart(core, sandbox)
        defer { next.process.send(SIGTERM) }
        #expect(next.errorOutput.contains("recovered revision 2 from 2 journal records; re-arming 1 durable timer\n"), "\(next.errorOutput)")
        try await eventually("the timer fires", timeout: .seconds(20)) { try await state(sandbox)["closed"] == .bool(true) }
        #expect(try await firings(sandbox) == 1)
        #expect(try await state(sandbox)["revision"]?.intValue == 3)
    }
}
