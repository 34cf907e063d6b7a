import ActorNode
import Glibc
import Testing
import Wire

/// `watch --patches` through the real binaries: applied in order, its lines rebuild exactly the
/// state the core has.
@Suite("watch --patches")
struct WatchPatchesTests {
    @Test("the first line replaces the whole state, each next one is the change of one revision; together they give the core's state", .timeLimit(.minutes(1)))
    func patchesRebuildTheState() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        _ = try await sandbox.client("send", "add", "before the watcher")
        let watcher = try sandbox.start(.shellClient, ["watch", "--patches", "--socket", sandbox.socket])
        defer { watcher.process.send(SIGTERM) }
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }
        for command in [["add", "milk"], ["add", "eggs"], ["toggle", "2"], ["edit", "3", "brown eggs"], ["remove", "1"], ["move", "3", "1"]] {
            let sent = try await sandbox.run(.shellClient, ["send"] + command + ["--socket", sandbox.socket])
            #expect(sent.status == 0, "\(sent)")
        }
        let final = try await sandbox.client("state", "--json")
        guard case var .object(expected) = try WireJSON.decode(JSONValue.self, from: Array(final.output.utf8)) else {
            Issue.record("state --json is not an object: \(final.output)")
            return
        }
        let revision = expected.removeValue(forKey: "revision")?.intValue
        #expect(revision == 7)
        await eventually("the watcher prints revision 7") { watcher.output.contains(#""revision":7}"#) }

        var document = JSONValue.null
        var revisions: [Int64] = []
        for line in watcher.output.split(separator: "\n") {
            let value = try WireJSON.decode(JSONValue.self, from: Array(line.utf8))
            guard case let .array(operations)? = value["patch"], let number = value["revision"]?.intValue else {
                Issue.record("not a patch line: \(line)")
                return
            }
            revisions.append(number)
            let patch = try JSONValueDecoder().decode(JSONPatch.self, from: .array(operations))
            try document.apply(patch)
        }
        #expect(revisions == Array(1 ... 7), "one line per revision, from the welcome's")
        #expect(document == .object(expected))
        let first = watcher.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix(#"{"patch":[{"op":"replace","path":"","value":{"#), "\(first)")
    }
}
