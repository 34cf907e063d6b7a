import ActorNode
import Foundation
import Glibc
import Testing
import Wire

/// Looking back: the state at any revision the state directory holds, rebuilt from the nearest
/// snapshot and the journal, from a running core (`state --at`, `diff`) and from a stopped one
/// (`core-daemon --at`), equal to what clients saw at that revision, across SIGKILLs and
/// snapshot rotations; `history` lists exactly the actions applied, with their senders; a
/// revision older than what is kept is one clear line.
@Suite("The state at a revision")
struct StateAtTests {
    @Test("a seeded run of actions across SIGKILLs and snapshots: state --at R and --at R equal what was seen at R, for every R held; diff and history agree", .timeLimit(.minutes(3)))
    func everyRevision() async throws {
        let sandbox = try Sandbox()
        // Small segments and little history kept, so that snapshots are taken and old
        // revisions removed during the run.
        let coreOptions = ["--state-dir", sandbox.stateDirectory, "--snapshot-every", "4096", "--keep-history", "4KB"]
        var core = try await sandbox.startCore(coreOptions)
        // A watcher records what it is shown, riding through the restarts.
        let watcher = try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket, "--timeout", "60"])
        defer { watcher.process.send(SIGKILL) }
        var seen: [UInt64: String] = [:]
        var sentWords: [UInt64: [String]] = [:]
        var random = SeededRandom(seed: 24)
        var items = 0
        for step in 1 ... 45 {
            let words: [String]
            switch random.next() % 4 {
            case 0, 1:
                items += 1
                words = ["add", "item \(step)"]
            case 2 where items > 0:
                words = ["toggle", "\(Int(random.next() % UInt64(items)) + 1)"]
            default:
                words = ["counter", random.next() % 2 == 0 ? "increment" : "decrement"]
            }
            let sent = try await sandbox.client(["send"] + words)
            #expect(sent.status == 0, "\(words): \(sent)")
            let state = try await sandbox.client("state", "--json").output
            let revision = try #require(StateAtTests.revision(of: state))
            seen[revision] = state
            sentWords[revision] = words
            if step % 15 == 0 {
                core.process.send(SIGKILL)
                _ = await core.process.waitForExit()
                core = try await sandbox.startCore(coreOptions)
            }
        }

        // From the running core: every revision the watcher was shown, and every one sent.
        let newestSeen = try #require(seen.keys.max())
        await eventually("the watcher shows the last revision") {
            watcher.output.split(separator: "\n").last.flatMap { StateAtTests.revision(of: String($0)) } == newestSeen
        }
        for line in watcher.output.split(separator: "\n") {
            guard let revision = StateAtTests.revision(of: String(line)) else { continue }
            seen[revision] = seen[revision] ?? String(line) + "\n"
            #expect(seen[revision] == String(line) + "\n", "the watcher and state --json differ at \(revision)")
        }
        var oldestHeld = newestSeen
        for revision in seen.keys.sorted() where try await sandbox.client(["state", "--at", "\(revision)"]).status == 0 {
            oldestHeld = revision
            break
        }
        for (revision, state) in seen where revision >= oldestHeld {
            let at = try await sandbox.client(["state", "--at", "\(revision)", "--json"])
            #expect(at.status == 0 && at.output == state, "state --at \(revision): \(at)")
        }
        // diff between recorded states, applied to the first, gives the second.
        let revisions = seen.keys.filter { $0 >= oldestHeld }.sorted()
        for (from, to) in zip(revisions, revisions.dropFirst(3)) + [(revisions.first!, revisions.last!), (revisions.last!, revisions.first!)] {
            let diff = try await sandbox.client(["diff", "\(from)", "\(to)", "--json"])
            try #require(diff.status == 0, "\(diff)")
            let patch = try WireJSON.decode(JSONValue.self, from: Array(diff.output.utf8))["patch"]
            let operations = try WireJSON.decode(JSONPatch.self, from: try WireJSON.encode(try #require(patch)))
            var state = try StateAtTests.stateOnly(seen[from]!)
            try state.apply(operations)
            #expect(state == (try StateAtTests.stateOnly(seen[to]!)), "diff \(from) \(to)")
        }
        let goneHere = try await sandbox.client(["state", "--at", "\(oldestHeld - 1)"])
        #expect(goneHere.status == 1 && goneHere.error.contains("revision \(oldestHeld - 1) is older than"), "\(goneHere)")
        // history: exactly the actions sent, in order, each with its sender.
        let history = try await sandbox.client(["history", "--json"])
        try #require(history.status == 0, "\(history)")
        var listed: [UInt64] = []
        for line in history.output.split(separator: "\n") {
            let entry = try WireJSON.decode(JSONValue.self, from: Array(line.utf8))
            let revision = try #require(entry["revision"]?.intValue).magnitude
            listed.append(revision)
            let words = try #require(sentWords[revision], "history lists revision \(revision), which was not sent")
            let verb = words[0] == "counter" ? "counter" : words[0]
            #expect(entry["action"]?.messageType == verb, "\(line) for \(words)")
            if words[0] == "add" { #expect(entry["action", "add", "text"] == .string(words[1]), "\(line)") }
            #expect(entry["by", "name"] == .string("shell-client send"), "\(line)")
            #expect(entry["by", "pid"]?.intValue != nil && entry["by", "client"] != nil, "\(line)")
        }
        #expect(listed == listed.sorted() && Set(listed).count == listed.count)
        #expect(listed.last == newestSeen && listed.count >= 10, "\(listed)")
        #expect(Set(listed) == Set(sentWords.keys.filter { $0 >= listed.first! }), "\(listed)")

        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()

        let check = try await sandbox.run(.coreDaemon, ["--check", "--state-dir", sandbox.stateDirectory])
        let held = try #require(check.output.split(separator: "\n").first { $0.hasPrefix("revisions held: ") })
        let bounds = held.dropFirst("revisions held: ".count).split(separator: " ")
        let oldest = try #require(UInt64(bounds[0]))
        let newest = try #require(UInt64(bounds[2]))
        try #require(oldest > 0, "the run was long enough for old revisions to go: \(check.output)")
        #expect(newest == seen.keys.max())
        var compared = 0
        for (revision, state) in seen.sorted(by: { $0.key < $1.key }) where revision >= oldest {
            let at = try await sandbox.run(.coreDaemon, ["--at", "\(revision)", "--state-dir", sandbox.stateDirectory])
            #expect(at.status == 0 && at.output == state, "revision \(revision): \(at)")
            compared += 1
        }
        #expect(compared >= 10, "only \(compared) revisions were held: \(check.output)")
        let gone = try await sandbox.run(.coreDaemon, ["--at", "\(oldest - 1)", "--state-dir", sandbox.stateDirectory])
        #expect(gone.status == 1)
        #expect(gone.error == "core-daemon: revision \(oldest - 1) is older than \(sandbox.stateDirectory) holds: the oldest it can show is \(oldest) (older ones went when newer snapshots covered them)\n", "\(gone)")
        let future = try await sandbox.run(.coreDaemon, ["--at", "\(newest + 1)", "--state-dir", sandbox.stateDirectory])
        #expect(future.status == 1 && future.error.contains("is past the newest one"), "\(future)")
    }

    /// A `state --json` line without its revision: the state's own JSON.
    private static func stateOnly(_ line: String) throws -> JSONValue {
        guard case var .object(members) = try WireJSON.decode(JSONValue.self, from: Array(line.utf8)) else { return .null }
        members["revision"] = nil
        return .object(members)
    }

    private static func revision(of line: String) -> UInt64? {
        guard let range = line.range(of: #""revision":"#) else { return nil }
        return UInt64(line[range.upperBound...].prefix { $0.isNumber })
    }
}

extension Sandbox {
    /// `shell-client ARGS --socket SOCKET`, run to completion (the words as an array).
    func client(_ arguments: [String]) async throws -> Finished {
        try await run(.shellClient, arguments + ["--socket", socket])
    }
}
