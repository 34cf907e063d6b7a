import ActorNode
import FoundationEssentials
import Glibc
import Testing
import TodoContract
import Wire

/// Acknowledged means it survives: restarts, torn writes and damage, through the real binaries.
@Suite("Durability")
struct DurabilityTests {
    private func stateJSON(_ sandbox: Sandbox) async throws -> String {
        let result = try await sandbox.client("state", "--json")
        #expect(result.status == 0, "\(result)")
        return result.output
    }

    private func lastJournal(_ sandbox: Sandbox) -> String? {
        StateFiles(directory: sandbox.stateDirectory).journals().last?.path
    }

    @Test("a restarted core gives exactly the same state and revision, after SIGTERM and after SIGKILL", arguments: [SIGTERM, SIGKILL])
    func restart(signal: Int32) async throws {
        let sandbox = try Sandbox()
        var core = try await sandbox.startCore()
        for verb in [["add", "buy milk"], ["add", "call mom"], ["toggle", "1"], ["counter", "set", "4"], ["move", "2", "1"], ["edit", "1", "oat milk"]] {
            let result = try await sandbox.run(.shellClient, ["send"] + verb + ["--socket", sandbox.socket])
            #expect(result.status == 0, "\(verb): \(result)")
        }
        let before = try await stateJSON(sandbox)
        core.process.send(signal)
        _ = await core.process.waitForExit()
        core = try await sandbox.startCore()
        #expect(try await stateJSON(sandbox) == before)
        #expect(core.errorOutput.contains("recovered revision 6 from 6 journal records"))
        #expect(try await sandbox.client("send", "add", "after").status == 0)
        #expect(try await stateJSON(sandbox).contains(#""revision":7"#))
    }

    @Test("a torn last record, made by the test, is dropped with a log line naming the offset")
    func tornTail() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        for number in 1 ... 3 { #expect(try await sandbox.client("send", "add", "item \(number)").status == 0) }
        let before = try await stateJSON(sandbox)
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        guard let journal = lastJournal(sandbox) else { Issue.record("no journal"); return }
        // Where the records end: the zeros laid out ahead of them follow (under the default
        // --fsync always), and a write would have gone there.
        let files = StateFiles(directory: sandbox.stateDirectory)
        let recovered = try Recovery.load(files, state: AppStateShape.self, action: JSONValue.self)
        let size = recovered.reserve?.offset ?? FileIO.size(journal) ?? 0
        // Half of a record: what a crash in the middle of a write leaves.
        let record = DurableRecord.encode(Array(#"{"action":{"add":{"text":"never acked"}},"at":0,"revision":4}"#.utf8))
        let fd = open(journal, O_WRONLY)
        try FileIO.writeAll(fd, Array(record.prefix(record.count / 2)), at: size, what: journal)
        close(fd)

        let restarted = try await sandbox.startCore()
        #expect(try await stateJSON(sandbox) == before)
        let name = String(journal.split(separator: "/").last!)
        // The record's length as its header declares it: its second half is zeros.
        #expect(restarted.errorOutput.contains("dropped a torn record at \(name) offset \(size) (\(record.count) bytes)"))
        #expect(FileIO.size(journal) == size, "the torn bytes are cut off")
    }

    @Test("corruption before the tail: the core refuses naming file and offset; --check reports; --repair truncates")
    func corruptionInTheMiddle() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        for number in 1 ... 4 { #expect(try await sandbox.client("send", "add", "item \(number)").status == 0) }
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()
        guard let journal = lastJournal(sandbox) else { Issue.record("no journal"); return }
        var bytes = try FileIO.read(journal)
        // The second action's record (each client's session record comes before its first).
        var actions: [Int] = []
        var offset = 0
        while case let .record(payload, next) = DurableRecord.scan(bytes, at: offset), !payload.isEmpty {
            if !SessionRecord.isSession(payload) { actions.append(offset) }
            offset = next
        }
        try #require(actions.count == 4, "\(actions)")
        let second = actions[1]
        bytes[second + DurableRecord.headerLength + 3] ^= 0x04
        try FileIO.writeAtomically(journal, bytes)
        let name = String(journal.split(separator: "/").last!)

        let refused = try await sandbox.run(.coreDaemon, ["--socket", sandbox.socket])
        #expect(refused.status == 1)
        #expect(refused.error.contains("cannot recover the state from \(sandbox.stateDirectory): \(name) at offset \(second): checksum mismatch, and records follow it"))
        #expect(refused.error.contains("'core-daemon --repair'"))
        #expect(!UnixSocket.isServing(sandbox.socket))

        let check = try await sandbox.run(.coreDaemon, ["--check"])
        #expect(check.status == 1)
        #expect(check.output.contains("\(name) at offset \(second): checksum mismatch"))

        let repair = try await sandbox.run(.coreDaemon, ["--repair"])
        #expect(repair.status == 0, "\(repair)")
        #expect(repair.output.contains("truncated \(name) at offset \(second)"))
        #expect(try await sandbox.run(.coreDaemon, ["--check"]).status == 0)

        _ = try await sandbox.startCore()
        let state = try WireJSON.decode(JSONValue.self, from: Array(try await stateJSON(sandbox).utf8))
        #expect(state["revision"]?.intValue == 1, "only the record before the damage is left")
    }

    @Test("fsync always: an ack arrives only after its record is in the journal")
    func ackAfterJournal() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "always"])
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        let files = StateFiles(directory: sandbox.stateDirectory)
        for seq in 1 ... 30 {
            try await client.send(#"{"action":{"client":"barrier","seq":\#(seq),"action":{"add":{"text":"n\#(seq)"}}}}"#)
            guard let revision = try await client.receive()?["ack", "revision"]?.intValue else {
                Issue.record("no ack for \(seq)")
                return
            }
            // The moment the ack is here, the record must be on disk already.
            let journaled = try Recovery.load(files, state: AppStateShape.self, action: JSONValue.self).lastRevision
            #expect(journaled >= UInt64(revision), "ack for revision \(revision) arrived with the journal at \(journaled)")
        }
    }

    @Test("every fsync policy keeps what was acknowledged across a restart", arguments: ["always", "batch", "never"])
    func policies(policy: String) async throws {
        let sandbox = try Sandbox()
        var core = try await sandbox.startCore(["--fsync", policy])
        await eventually("the core logs its policy") { core.errorOutput.contains("fsync \(policy)") }
        for number in 1 ... 5 { #expect(try await sandbox.client("send", "add", "n\(number)").status == 0) }
        let before = try await stateJSON(sandbox)
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        core = try await sandbox.startCore(["--fsync", policy])
        #expect(try await stateJSON(sandbox) == before)
    }

    @Test("a second core may not use the same state directory")
    func stateDirectoryLock() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.startCore()
        let second = try await sandbox.run(.coreDaemon, ["--socket", sandbox.directory + "/other.sock"])
        #expect(second.status == 1)
        #expect(second.error.contains("another core uses the state directory \(sandbox.stateDirectory) (pid \(first.pid))"))
    }
}

/// Any state, for reading a journal without the app's types.
typealias AppStateShape = JSONValue
