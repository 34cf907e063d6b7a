import ActorNode
import Glibc
import Testing
import Wire

/// A patch a shell cannot apply (an app whose hand-written diff does not fit its encoding:
/// `drift-core`, a fixture) does not kill the shell: it asks for the whole state, says so once
/// on stderr, and follows on; the core logs the app's bug once per connection.
@Suite("A patch that does not apply: the shell resyncs")
struct PatchResyncTests {
    @Test("watchers ask for the whole state, say so once, and follow every later change", .timeLimit(.minutes(1)))
    func watchersResync() async throws {
        let sandbox = try Sandbox()
        let core = try sandbox.start(.driftCore, ["--socket", sandbox.socket])
        defer { core.process.send(SIGKILL) }
        await eventually("drift-core serves") { UnixSocket.isServing(sandbox.socket) || core.process.termination != nil }
        #expect(try await sandbox.client("send", "add", "before").status == 0)

        let json = try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket])
        let patches = try sandbox.start(.shellClient, ["watch", "--patches", "--socket", sandbox.socket])
        defer {
            json.process.send(SIGKILL)
            patches.process.send(SIGKILL)
        }
        await eventually("both watchers show revision 1") {
            json.output.contains(#""revision":1"#) && patches.output.contains(#""revision":1"#)
        }

        // The winner comes: its `replace` does not apply to a document without it.
        #expect(try await sandbox.client("send", "counter", "set", "5").status == 0)
        #expect(try await sandbox.client("send", "add", "after").status == 0)
        #expect(try await sandbox.client("send", "counter", "set", "7").status == 0)
        await eventually("the watchers show the state after the bad patch") {
            json.output.contains(#""revision":4"#) && patches.output.contains(#""revision":4"#)
        }

        let last = try #require(json.output.split(separator: "\n").last)
        let state = try WireJSON.decode(JSONValue.self, from: Array(last.utf8))
        #expect(state["winner"]?.intValue == 7, "\(last)")
        if case let .array(items)? = state["todo", "items"] {
            #expect(items.count == 2, "\(last)")
        } else {
            Issue.record("no items: \(last)")
        }
        #expect(state == (try await stateNow(sandbox)), "the watcher's state is the core's")
        for watcher in [json, patches] {
            #expect(watcher.process.termination == nil, "a watcher died: \(watcher.errorOutput)")
            let said = watcher.errorOutput.split(separator: "\n").filter { $0.contains("does not apply to this shell's copy of the state") }
            #expect(said.count == 1, "\(watcher.errorOutput)")
            #expect(said.first?.contains("the patch for revision 2 does not apply") == true, "\(said)")
            #expect(said.first?.contains("asked the core for the whole state") == true, "\(said)")
        }
        // Under --patches, the whole state came as a line that replaces the document.
        #expect(patches.output.contains(#"{"patch":[{"op":"replace","path":"","value":"#), "\(patches.output)")
        let logged = core.errorOutput.split(separator: "\n").filter { $0.contains("could not apply the patch for revision") }
        #expect(logged.count == 2, "once per watcher: \(core.errorOutput)")
        #expect(logged.allSatisfy { $0.contains("a bug of the app") }, "\(logged)")
    }

    @Test("a script that asks for the whole state is told it is no shell", .timeLimit(.minutes(1)))
    func scriptCannotResync() async throws {
        let sandbox = try Sandbox()
        let core = try sandbox.start(.driftCore, ["--socket", sandbox.socket])
        defer { core.process.send(SIGKILL) }
        await eventually("drift-core serves") { UnixSocket.isServing(sandbox.socket) || core.process.termination != nil }
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"s","name":"resync test"}}"#)
        #expect(try await client.receive()?.messageType == "welcome")
        try await client.send(#"{"resync":{"revision":1,"reason":"none"}}"#)
        let answer = try await client.receive()
        #expect(answer?["error", "code"]?.stringValue == "unexpected_message", "\(String(describing: answer))")
    }

    private func stateNow(_ sandbox: Sandbox) async throws -> JSONValue {
        let state = try await sandbox.client("state", "--json")
        return try WireJSON.decode(JSONValue.self, from: Array(state.output.utf8))
    }
}
