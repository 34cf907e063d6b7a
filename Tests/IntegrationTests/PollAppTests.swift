import ActorNode
import Glibc
import Testing
import Wire

/// The third app, the poll, through the real binaries: its close at a deadline (a durable timer)
/// survives a crash of the core (a new core re-arms it, and fires it at once if the deadline
/// passed while none ran), and its
/// optional winner reaches every watcher as the patch the framework found for it.
@Suite("The poll")
struct PollAppTests {
    private func poll(_ sandbox: Sandbox, _ arguments: String...) async throws -> Finished {
        try await sandbox.run(.pollShell, arguments + ["--socket", sandbox.socket, "--timeout", "30"])
    }

    /// A number of seconds in the state's JSON.
    private func seconds(_ value: JSONValue?) -> Double? {
        switch value {
        case let .double(seconds)?: seconds
        case let .integer(seconds)?: Double(seconds)
        default: nil
        }
    }

    /// Seconds since 1970, as the core reads them.
    static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func state(_ sandbox: Sandbox) async throws -> JSONValue {
        try WireJSON.decode(JSONValue.self, from: Array(try await poll(sandbox, "state", "--json").output.utf8))
    }

    @Test("close --in, then the core SIGKILLed under cama-launch: the next core closes the poll at the deadline, once", .timeLimit(.minutes(1)))
    func closeSurvivesACrash() async throws {
        let sandbox = try Sandbox()
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--core", "poll-core", "--shell", "poll-shell", "--socket", sandbox.socket])
        defer { launcher.process.send(SIGTERM) }
        await eventually("the launcher's poll core serves") { await corePid(sandbox.socket) != nil }
        let watcher = try sandbox.start(.pollShell, ["watch", "--json", "--socket", sandbox.socket, "--timeout", "30"])
        defer { watcher.process.send(SIGKILL) }
        for words in [["propose", "pizza"], ["propose", "sushi"], ["vote", "2"], ["close", "--in", "20"]] {
            let sent = try await sandbox.run(.pollShell, ["send"] + words + ["--socket", sandbox.socket])
            #expect(sent.status == 0, "\(words): \(sent)")
        }
        let first = try #require(await corePid(sandbox.socket))
        // The first core must not reach the deadline itself: it is killed well before.
        let deadline = try #require(seconds(try await state(sandbox)["closesAt"]))
        try #require(Self.now() < deadline - 2, "this machine took too long to kill the core before the deadline")
        kill(first, SIGKILL)
        await eventually("a new poll core") { await corePid(sandbox.socket).map { $0 != first } ?? false }

        try await eventually("the poll closes by itself", timeout: .seconds(30)) { try await state(sandbox)["closed"] == .bool(true) }
        let closed = try await state(sandbox)
        #expect(closed["winner"]?.intValue == 2)
        #expect(closed["closesAt"] == nil, "\(closed)")
        // Four actions and one close, the timer's firing: not two.
        #expect(closed["revision"]?.intValue == 5, "\(closed)")
        let fired = try await poll(sandbox, "history", "--json", "--last", "1")
        #expect(fired.output.contains(#""by":{"core":true,"timer":"close"}"#), "\(fired)")
        // The watcher rode through the restart and applied the winner's `add` like any patch.
        await eventually("the watcher shows the winner") { watcher.output.split(separator: "\n").last?.contains(#""winner":2"#) == true }
        #expect(!watcher.errorOutput.contains("does not apply"), "\(watcher.errorOutput)")
        let late = try await poll(sandbox, "send", "vote", "1")
        #expect(late.status == 1)
        #expect(late.error == "poll-shell: rejected: the poll is closed (closed)\n")
    }

    @Test("a deadline that passed while no core ran closes the poll as soon as one starts", .timeLimit(.minutes(1)))
    func deadlinePassedWhileDown() async throws {
        let sandbox = try Sandbox()
        let core = try sandbox.start(.pollCore, ["--socket", sandbox.socket])
        await eventually("poll-core serves") { UnixSocket.isServing(sandbox.socket) }
        #expect(try await poll(sandbox, "send", "propose", "pizza").status == 0)
        // Killed as soon as the close is acknowledged (it is journaled then), well before the
        // deadline even while the whole suite shares two cores and a command can take seconds;
        // the deadline is at most 10 s after the send began.
        let sent = Self.now()
        #expect(try await poll(sandbox, "send", "close", "--in", "10").status == 0)
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        await eventually("the deadline passes while no core runs", timeout: .seconds(20)) { Self.now() > sent + 10.5 }
        let next = try sandbox.start(.pollCore, ["--socket", sandbox.socket])
        defer { next.process.send(SIGTERM) }
        await eventually("the next poll-core serves") { UnixSocket.isServing(sandbox.socket) }
        await eventually("the next core says what it recovered") { next.errorOutput.contains("recovered revision") }
        #expect(next.errorOutput.contains("recovered revision 2 from 2 journal records; re-arming 1 durable timer\n"), "\(next.errorOutput)")
        try await eventually("the poll is closed") { try await state(sandbox)["closed"] == .bool(true) }
        #expect(try await state(sandbox)["winner"]?.intValue == 1)
    }
}
