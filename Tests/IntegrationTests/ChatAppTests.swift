import ActorNode
import Glibc
import Testing
import Wire

/// The second app, through the real binaries: everything but its contract, reducer and shell is
/// the framework's, and works for it as for the to-do app.
@Suite("The chat room")
struct ChatAppTests {
    private func chat(_ sandbox: Sandbox, _ arguments: String..., input: String? = nil) async throws -> Finished {
        try await sandbox.run(.chatShell, arguments + ["--socket", sandbox.socket], input: input)
    }

    @Test("verbs, JSON, rejects with exit 1, the state as JSON, watch printing new messages, the line shell", .timeLimit(.minutes(1)))
    func scripting() async throws {
        let sandbox = try Sandbox()
        let core = try sandbox.start(.chatCore, ["--socket", sandbox.socket])
        await eventually("chat-core serves") { UnixSocket.isServing(sandbox.socket) }
        let watcher = try sandbox.start(.chatShell, ["watch", "--socket", sandbox.socket])
        // --count counts lines printed: the welcome of an empty room and the rename print none.
        let counted = try sandbox.start(.chatShell, ["watch", "--count", "2", "--socket", sandbox.socket])
        try await eventually("both watchers are attached") { try await attachedShells(sandbox.socket) == 2 }
        #expect(try await chat(sandbox, "send", "post", "alice", "hi").status == 0)
        #expect(try await chat(sandbox, "send", "--json", #"{"post":{"author":"a","text":"t"}}"#).status == 0)
        #expect(try await chat(sandbox, "send", "rename", "alice", "carol").status == 0)
        let empty = try await chat(sandbox, "send", "post", "bob", "   ")
        #expect(empty.status == 1)
        #expect(empty.error == "chat-shell: rejected: a message needs some text (empty_text)\n")
        let nobody = try await chat(sandbox, "send", "rename", "nobody", "x")
        #expect(nobody.status == 1)
        #expect(nobody.error == "chat-shell: rejected: nobody has no messages (unknown_author)\n")
        let usage = try await chat(sandbox, "send", "rename", "alice")
        #expect(usage.status == 2)
        #expect(usage.error == "chat-shell: usage: rename OLD NEW; see 'chat-shell --help'\n")

        let state = try await chat(sandbox, "state", "--json")
        let json = try WireJSON.decode(JSONValue.self, from: Array(state.output.utf8))
        #expect(json["revision"]?.intValue == 3)
        #expect(json["posts"] == .object(["carol": .integer(1), "a": .integer(1)]))
        guard case let .array(messages)? = json["messages"] else { Issue.record("no messages: \(state)"); return }
        #expect(messages.compactMap { $0["author"]?.stringValue } == ["carol", "a"])
        #expect(messages.compactMap { $0["id"]?.intValue } == [1, 2])

        let text = try await chat(sandbox, "state")
        #expect(text.output == "revision 3: 2 messages\ncarol: hi\na: t\nposts: a 1, carol 1\n")

        await eventually("the watcher printed each new message") { watcher.output.contains("alice: hi\na: t\n") }
        #expect(await counted.process.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(counted.output == "alice: hi\na: t\n")

        let attached = try await chat(sandbox, "attach", input: "post dave \"from the line shell\"\npost dave\nquit\n")
        #expect(attached.status == 0, "\(attached)")
        #expect(attached.output.contains("dave: from the line shell"))
        #expect(attached.output.contains("usage: post AUTHOR TEXT"))
        core.process.send(SIGTERM)
        #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0))
    }

    @Test("/roll posts a die from 1 to 6; a restarted core shows the same number, rolled once", .timeLimit(.minutes(1)))
    func rollSurvivesRestart() async throws {
        let sandbox = try Sandbox()
        let first = try sandbox.start(.chatCore, ["--socket", sandbox.socket])
        await eventually("chat-core serves") { UnixSocket.isServing(sandbox.socket) }
        #expect(try await chat(sandbox, "send", "post", "alice", "/roll please").status == 0)
        var die = ""
        await eventually("the die is posted") {
            let state = (try? await chat(sandbox, "state"))?.output ?? ""
            guard let line = state.split(separator: "\n").first(where: { $0.hasPrefix("dice: ") }) else { return false }
            die = String(line.dropFirst("dice: ".count))
            return true
        }
        #expect(["1", "2", "3", "4", "5", "6"].contains(die))
        first.process.send(SIGKILL)
        _ = await first.process.waitForExit()
        let second = try sandbox.start(.chatCore, ["--socket", sandbox.socket])
        defer { second.process.send(SIGTERM) }
        await eventually("chat-core serves again") { UnixSocket.isServing(sandbox.socket) }
        let state = try await chat(sandbox, "state")
        #expect(state.output == "revision 2: 2 messages\nalice: /roll please\ndice: \(die)\nposts: alice 1, dice 1\n")
        // --check replays the journal through the chat reducer, its effects off.
        let check = try await sandbox.run(.chatCore, ["--check"])
        #expect(check.status == 0, "\(check)")
        #expect(check.output.contains("replays through this version of the app to revision 2: sound"), "\(check.output)")
    }

    @Test("under cama-launch, the core SIGKILLed during concurrent posts: every acknowledged post is there once", .timeLimit(.minutes(2)))
    func supervisedExactlyOnce() async throws {
        let sandbox = try Sandbox()
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--core", "chat-core", "--shell", "chat-shell", "--socket", sandbox.socket])
        defer { launcher.process.send(SIGTERM) }
        await eventually("the launcher's chat core serves") { await corePid(sandbox.socket) != nil }
        // The core serves before its launcher, told it is ready, logs that it supervises it.
        await eventually("the launcher says it supervises chat-core") { launcher.errorOutput.contains("supervising chat-core") }
        let kills = Task {
            var random = SeededRandom(seed: 2026)
            var killed = 0
            for _ in 0 ..< 3 {
                try await Task.sleep(for: .milliseconds(Int64(150 + random.next() % 300)))
                guard let core = await corePid(sandbox.socket) else { continue }
                kill(core, SIGKILL)
                killed += 1
                await eventually("a new chat core after killing \(core)") { await corePid(sandbox.socket).map { $0 != core } ?? false }
            }
            return killed
        }
        let results = try await withThrowingTaskGroup(of: [Finished].self) { group in
            for author in ["alice", "bob", "carol"] {
                group.addTask {
                    var results: [Finished] = []
                    for number in 1 ... 10 {
                        results.append(try await chat(sandbox, "send", "post", author, "\(author) \(number)", "--timeout", "30"))
                    }
                    return results
                }
            }
            group.addTask {
                let lines = (1 ... 30).map { "post pipe p\($0)" }.joined(separator: "\n") + "\n"
                return [try await chat(sandbox, "send", "-", "--timeout", "30", input: lines)]
            }
            var all: [Finished] = []
            for try await part in group { all += part }
            return all
        }
        #expect(try await kills.value == 3)
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.filter { $0.status != 0 })")
        let state = try WireJSON.decode(JSONValue.self, from: Array(try await chat(sandbox, "state", "--json").output.utf8))
        guard case let .array(messages)? = state["messages"] else { Issue.record("no messages"); return }
        let texts = messages.compactMap { $0["text"]?.stringValue }
        #expect(texts.count == 60 && Set(texts).count == 60, "\(texts.count) messages, \(Set(texts).count) distinct")
        #expect(texts.filter { $0.hasPrefix("p") } == (1 ... 30).map { "p\($0)" })
        #expect(state["posts"] == .object(["alice": .integer(10), "bob": .integer(10), "carol": .integer(10), "pipe": .integer(30)]))
        let ids = messages.compactMap { $0["id"]?.intValue }
        #expect(ids == Array(1 ... 60))

        // The launcher stops it like any core; status and stop work with the chat core too.
        let status = try await sandbox.run(.camaLaunch, ["status", "--core", "chat-core", "--socket", sandbox.socket])
        #expect(status.status == 0, "\(status)")
        #expect(status.output.contains("revision:  60"))
        let stop = try await sandbox.run(.camaLaunch, ["stop", "--core", "chat-core", "--socket", sandbox.socket])
        #expect(stop.status == 0, "\(stop)")
        #expect(await launcher.process.waitForExit(timeout: .seconds(15)) == .exited(0))
        let check = try await sandbox.run(.chatCore, ["--check"])
        #expect(check.status == 0, "\(check)")
        #expect(check.output.contains("replays through this version of the app to revision 60: sound"), "\(check.output)")
        // The launcher's own lines name the core it runs.
        let launcherLines = launcher.errorOutput.split(separator: "\n").filter { $0.contains("cama-launch[") }
        #expect(launcherLines.contains { $0.contains("chat-core (pid") && $0.contains("restarting in") }, "\(launcherLines)")
        #expect(launcherLines.contains { $0.contains("stopping chat-core (pid") }, "\(launcherLines)")
        #expect(!launcherLines.contains { $0.contains("core-daemon") }, "\(launcherLines)")
    }

    @Test("cama-launch --core chat-core --shell chat-shell: the line shell in this terminal", .timeLimit(.minutes(1)))
    func interactiveLauncher() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(.camaLaunch, ["--core", "chat-core", "--shell", "chat-shell", "--socket", sandbox.socket], input: "post alice \"hello from Root\"\nquit\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("alice: hello from Root"), "\(result)")
        #expect(!fileExists(sandbox.socket))
    }
}
