import ActorNode
import Testing
import Wire

/// Three watchers and two senders acting at once, through the real binaries: every watcher
/// ends at exactly the core's final state.
@Suite("Convergence across processes")
struct ConvergenceTests {
    @Test("three watchers and two interleaved senders converge on the same final state")
    func watchersConverge() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let watchers = try (0 ..< 3).map { _ in try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket]) }
        let attached = try await eventually("three watchers are attached") { try await attachedShells(sandbox.socket) == 3 }
        if !attached {
            Issue.record("core: \(core.errorOutput)\nwatchers: \(watchers.map { "\($0.pid): \($0.errorOutput) \($0.output)" })")
        }

        // Sender A pipelines 60 adds through one `send -`; sender B runs 30 separate `send`
        // processes at the same time, so their actions interleave in the core.
        let lines = (1 ... 60).map { "add A\($0)" }.joined(separator: "\n") + "\n"
        async let pipelined = sandbox.client("send", "-", input: lines)
        async let oneByOne: [Finished] = {
            var results: [Finished] = []
            for number in 1 ... 30 { results.append(try await sandbox.client("send", "add", "B\(number)")) }
            return results
        }()
        let (a, b) = try await (pipelined, oneByOne)
        #expect(a.status == 0, "\(a)")
        #expect(b.allSatisfy { $0.status == 0 }, "\(b.filter { $0.status != 0 })")

        let final = try await sandbox.client("state", "--json")
        #expect(final.status == 0)
        let finalState = try WireJSON.decode(JSONValue.self, from: Array(final.output.utf8))
        #expect(finalState["revision"]?.intValue == 90)

        for watcher in watchers {
            await eventually("watcher \(watcher.pid) reaches revision 90") { watcher.output.hasSuffix(final.output) }
            let states = try watcher.output.split(separator: "\n").map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8)) }
            let revisions = states.compactMap { $0["revision"]?.intValue }
            #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "revisions must only grow")
            #expect(states.last == finalState)
        }

        // Each sender's items are all there, once, in the order that sender sent them.
        guard case let .array(items)? = finalState["todo", "items"] else {
            Issue.record("no items in \(final.output)")
            return
        }
        let texts = items.compactMap { $0["text"]?.stringValue }
        #expect(texts.filter { $0.hasPrefix("A") } == (1 ... 60).map { "A\($0)" })
        #expect(texts.filter { $0.hasPrefix("B") } == (1 ... 30).map { "B\($0)" })
        let ids = items.compactMap { $0["id"]?.intValue }
        #expect(Set(ids).count == 90)
    }
}

/// How many shells and watchers the core at `socket` reports (via a script's welcome).
func attachedShells(_ socket: String) async throws -> Int64? {
    let client = try RawClient.connect(socket)
    defer { client.close() }
    try await client.hello(role: "script")
    return try await client.receive()?["welcome", "shells"]?.intValue
}

/// The revision of the core serving `socket`, as its welcome says (nil if none answers).
func coreRevision(_ socket: String) async -> UInt64? {
    await welcomeNumber(socket, "revision").map(UInt64.init)
}

/// The pid of the core serving `socket`, as its welcome says (nil if none answers).
func corePid(_ socket: String) async -> Int32? {
    await welcomeNumber(socket, "pid").map(Int32.init)
}

/// A number of the welcome a script gets from the core serving `socket` (nil if none answers).
private func welcomeNumber(_ socket: String, _ field: String) async -> Int64? {
    guard let client = try? RawClient.connect(socket) else { return nil }
    defer { client.close() }
    guard (try? await client.hello(role: "script")) != nil else { return nil }
    return (try? await client.receive(timeout: .seconds(5)))??["welcome", field]?.intValue
}
