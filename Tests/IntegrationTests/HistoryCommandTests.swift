import ActorNode
import Glibc
import Testing
import Wire

/// `history` through the real binaries: every action the journal holds, in order, with who
/// sent it (a client by its hello's name, its process and its user; the core itself, naming
/// the effect); `--client`, `--last`, `--from` and `--to` narrow it; `--follow` goes on with each
/// new action as it is applied, through restarts of the core; and the look-back commands' usage
/// mistakes.
@Suite("history")
struct HistoryCommandTests {
    /// The login name of this process's user, as the core names it.
    private static var user: String? {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    @Test("every action with its sender, narrowed by --client, --last, --from and --to; --follow goes on", .timeLimit(.minutes(1)))
    func listsAndFollows() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--state-dir", sandbox.stateDirectory])
        defer { core.process.send(SIGTERM) }
        #expect(try await sandbox.client(["send", "add", "a"]).status == 0)
        #expect(try await sandbox.client(["send", "add", "b"]).status == 0)
        // Two actions on one connection: one session record for both.
        #expect(try await sandbox.run(.shellClient, ["send", "-", "--socket", sandbox.socket], input: "counter increment\ncounter increment\n").status == 0)

        let all = try await sandbox.client(["history"])
        let lines = all.output.split(separator: "\n")
        #expect(all.status == 0 && lines.count == 4, "\(all)")
        #expect(lines.first?.hasPrefix("1 ") == true && lines.first?.hasSuffix(#" {"add":{"text":"a"}}"#) == true, "\(all)")
        let who = "shell-client send (client "
        #expect(lines.first?.contains(who) == true && lines.first?.contains(", \(Self.user ?? "uid")") == true, "\(all)")
        #expect(lines.last?.hasPrefix("4 ") == true && lines.last?.contains("shell-client send - (client ") == true, "\(all)")

        let json = try await sandbox.client(["history", "--json"])
        let entries = try json.output.split(separator: "\n").map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8)) }
        #expect(entries.map { $0["revision"]?.intValue } == [1, 2, 3, 4])
        #expect(entries[2]["by", "client"] == entries[3]["by", "client"], "one connection, one client")
        #expect(entries[0]["by", "client"] != entries[1]["by", "client"])
        #expect(entries.allSatisfy { $0["by", "pid"]?.intValue != nil && $0["by", "uid"]?.intValue == Int64(getuid()) })
        #expect(entries[3]["by", "seq"]?.intValue == 2 && entries[3]["action", "counter", "increment"] != nil, "\(entries[3])")

        let mine = try await sandbox.client(["history", "--client", "shell-client send -"])
        #expect(mine.output.split(separator: "\n").map { $0.prefix(2) } == ["3 ", "4 "], "\(mine)")
        let byID = try await sandbox.client(["history", "--client", entries[0]["by", "client"]?.stringValue ?? "?"])
        #expect(byID.output.split(separator: "\n").count == 1 && byID.output.hasPrefix("1 "), "\(byID)")
        let last = try await sandbox.client(["history", "--last", "1"])
        #expect(last.output.hasPrefix("4 ") && last.output.split(separator: "\n").count == 1, "\(last)")
        let middle = try await sandbox.client(["history", "--from", "2", "--to", "3"])
        #expect(middle.output.split(separator: "\n").map { $0.prefix(2) } == ["2 ", "3 "], "\(middle)")

        let follower = try sandbox.start(.shellClient, ["history", "--follow", "--json", "--socket", sandbox.socket])
        defer { follower.process.send(SIGKILL) }
        await eventually("the follower prints what the journal holds") { follower.output.split(separator: "\n").count == 4 }
        // randomize's effect sends the counter's new value: the core's own action.
        #expect(try await sandbox.client(["send", "counter", "randomize"]).status == 0)
        await eventually("the follower prints each new action") { follower.output.split(separator: "\n").count == 6 }
        let followed = try follower.output.split(separator: "\n").map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8)) }
        #expect(followed.map { $0["revision"]?.intValue } == [1, 2, 3, 4, 5, 6])
        #expect(followed[4]["action", "counter", "randomize"] != nil, "\(followed[4])")
        #expect(followed[5]["by"] == .object(["core": .bool(true)]), "\(followed[5])")
        #expect(followed[5]["action", "counter", "set"] != nil, "\(followed[5])")
        #expect(follower.process.termination == nil, "it goes on until interrupted")
    }

    @Test("history --follow rides through a SIGKILL of the core under cama-launch: it asks again from the revision after the last it printed", .timeLimit(.minutes(1)))
    func followsThroughRestarts() async throws {
        let sandbox = try Sandbox()
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket])
        defer { launcher.process.send(SIGTERM) }
        await eventually("the launcher's core serves") { await corePid(sandbox.socket) != nil }
        for text in ["one", "two"] { #expect(try await sandbox.client(["send", "add", text]).status == 0) }
        let follower = try sandbox.start(.shellClient, ["history", "--follow", "--json", "--socket", sandbox.socket, "--timeout", "30"])
        defer { follower.process.send(SIGKILL) }
        await eventually("the follower prints what the journal holds") { follower.output.split(separator: "\n").count == 2 }
        let first = try #require(await corePid(sandbox.socket))
        kill(first, SIGKILL)
        await eventually("a new core") { await corePid(sandbox.socket).map { $0 != first } ?? false }
        #expect(try await sandbox.client(["send", "add", "three"]).status == 0)
        await eventually("the follower prints the action sent to the new core") { follower.output.split(separator: "\n").count == 3 }
        let revisions = try follower.output.split(separator: "\n").map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8))["revision"]?.intValue }
        #expect(revisions == [1, 2, 3], "\(follower.output)")
        #expect(follower.errorOutput.contains("reconnected to the core at revision 2; following from revision 3"), "\(follower.errorOutput)")
        #expect(follower.process.termination == nil)
    }

    @Test("the look-back commands' mistakes are usage errors", arguments: [
        (["history", "--from", "3", "--to", "2"], "history --from 3 comes after --to 2"),
        (["diff", "1"], "diff needs two revisions: 'shell-client diff REV1 REV2'"),
        (["diff", "1", "x"], "diff takes revisions, whole numbers from 0 to 9223372036854775807 (found 'x')"),
        (["diff", "1", "9223372036854775808"], "diff takes revisions, whole numbers from 0 to 9223372036854775807 (found '9223372036854775808')"),
        (["history", "--last", "0"], nil),
        (["state", "--at", "-1"], nil),
        (["history", "--follow", "--count", "2"], nil),
    ] as [([String], String?)])
    func mistakes(arguments: [String], message: String?) async throws {
        let sandbox = try Sandbox()
        let finished = try await sandbox.client(arguments)
        #expect(finished.status == 2, "\(finished)")
        if let message { #expect(finished.error == "shell-client: \(message); see 'shell-client --help'\n", "\(finished)") }
        #expect(finished.error.split(separator: "\n").count == 1, "\(finished)")
    }
}
