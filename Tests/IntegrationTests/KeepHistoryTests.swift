import ActorNode
import Glibc
import Testing
import Wire

/// `--keep-history`: the journal and snapshots recovery no longer needs stay as history (by
/// default a week, within 256 MiB) for `history`, `state --at` and `diff`; a core started
/// with less removes what its policy does not keep, and a look past the horizon is one clear
/// line; a core starting on a long history reads only the journal after its snapshot.
@Suite("Keeping history")
struct KeepHistoryTests {
    @Test("by default old revisions stay after rotations; --keep-history 0 removes them at the next start, and history and state --at say where the horizon is", .timeLimit(.minutes(2)))
    func horizon() async throws {
        let sandbox = try Sandbox()
        let rotating = ["--state-dir", sandbox.stateDirectory, "--snapshot-every", "1024"]
        var core = try await sandbox.startCore(rotating)
        for number in 1 ... 30 { #expect(try await sandbox.client(["send", "add", "item \(number)"]).status == 0) }
        let files = StateFiles(directory: sandbox.stateDirectory)
        #expect(files.snapshots().count > 3, "rotations took snapshots: \(files.snapshots().map(\.name))")
        #expect(files.journals().first?.revision == 1, "the first segment is kept as history")

        let history = try await sandbox.client(["history", "--json"])
        #expect(history.status == 0 && history.output.split(separator: "\n").count == 30, "\(history)")
        let first = try await sandbox.client(["state", "--at", "1", "--json"])
        #expect(first.status == 0 && first.output.contains(#""text":"item 1""#) && !first.output.contains("item 2"), "\(first)")
        let diff = try await sandbox.client(["diff", "1", "2"])
        #expect(diff.output == "add /todo/items/1: {\"done\":false,\"id\":2,\"pomodoros\":0,\"text\":\"item 2\"}\nreplace /todo/nextId: 2 -> 3\n", "\(diff)")

        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()
        let held = try await sandbox.run(.coreDaemon, ["--check", "--state-dir", sandbox.stateDirectory])
        #expect(held.status == 0 && held.output.contains("revisions held: 0 to 30 ("), "\(held.output)")

        core = try await sandbox.startCore(rotating + ["--keep-history", "0"])
        defer { core.process.send(SIGTERM) }
        // (The socket listens before the state directory is read: an answer says it was.)
        #expect(try await sandbox.client(["state"]).status == 0)
        #expect(files.snapshots().count == 2, "\(files.snapshots().map(\.name))")
        let oldest = Recovery.oldestRevision(files)
        #expect(oldest > 1)
        let journalStart = try #require(files.journals().first?.revision)
        let gone = try await sandbox.client(["history", "--from", "1"])
        #expect(gone.status == 1, "\(gone)")
        #expect(gone.error == "shell-client: revision 1 is older than the journal holds: its oldest action is revision \(journalStart) (older ones went when snapshots covered them)\n", "\(gone)")
        let before = try await sandbox.client(["state", "--at", "1"])
        #expect(before.status == 1)
        #expect(before.error == "shell-client: revision 1 is older than \(sandbox.stateDirectory) holds: the oldest it can show is \(oldest) (older ones went when newer snapshots covered them)\n", "\(before)")
        let kept = try await sandbox.client(["state", "--at", "\(oldest)", "--json"])
        #expect(kept.status == 0 && kept.output.contains(#""revision":\#(oldest)"#), "\(kept)")
    }

    @Test("a core starting on a long history reads only the journal after its snapshot: a damaged old segment does not stop it", .timeLimit(.minutes(2)))
    func startsWithoutReadingHistory() async throws {
        let sandbox = try Sandbox()
        let rotating = ["--state-dir", sandbox.stateDirectory, "--snapshot-every", "1024"]
        var core = try await sandbox.startCore(rotating)
        for number in 1 ... 20 { #expect(try await sandbox.client(["send", "add", "item \(number)"]).status == 0) }
        let state = try await sandbox.client(["state", "--json"]).output
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()
        // Damage the oldest segment, which the newest snapshots cover.
        let files = StateFiles(directory: sandbox.stateDirectory)
        let oldest = try #require(files.journals().first)
        var bytes = try FileIO.read(oldest.path)
        bytes[DurableRecord.headerLength + 2] ^= 0x04
        try FileIO.writeAtomically(oldest.path, bytes)

        core = try await sandbox.startCore(rotating)
        defer { core.process.send(SIGTERM) }
        #expect(core.process.termination == nil, "\(core.errorOutput)")
        #expect(try await sandbox.client(["state", "--json"]).output == state)
        // Reading the history there says where the damage is.
        let history = try await sandbox.client(["history"])
        #expect(history.status != 0 && history.error.contains(oldest.name), "\(history)")
    }
}
