import ActorNode
import FoundationEssentials
import Glibc
import Testing

/// A journal file removed or replaced under a running core is noticed before anything more is
/// acknowledged (under `always`; within 100 ms otherwise): the core writes its state as a
/// snapshot, moves a replacing file aside, goes on in a new segment and says so, and a restart
/// (even after SIGKILL) has every acknowledged action.
@Suite("Journal removed or replaced")
struct JournalReplacedTests {
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case removed, replaced
        var testDescription: String { rawValue }
    }

    @Test("a removed or replaced journal: nothing acknowledged is lost", .timeLimit(.minutes(1)),
          arguments: [Change.removed, .replaced], ["always", "never"])
    func journalMoved(change: Change, fsync: String) async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--fsync", fsync])
        for text in ["one", "two", "three"] {
            #expect(try await sandbox.client("send", "add", text).status == 0)
        }
        let files = StateFiles(directory: sandbox.stateDirectory)
        let journals = files.journals()
        #expect(journals.count == 1)
        guard let journal = journals.first else { return }
        switch change {
        case .removed:
            #expect(unlink(journal.path) == 0)
        case .replaced:
            let impostor = sandbox.stateDirectory + "/impostor"
            try Data("not a journal".utf8).write(to: URL(fileURLWithPath: impostor))
            #expect(rename(impostor, journal.path) == 0)
        }
        for text in ["four", "five"] {
            #expect(try await sandbox.client("send", "add", text).status == 0)
        }
        let expectedLine = "the journal \(journal.name) " + (change == .removed ? "was removed" : "was replaced by another file (moved aside to \(journal.name).replaced)")
        await eventually("the core noticed") { core.errorOutput.contains(expectedLine) }
        #expect(core.errorOutput.contains("wrote the state at revision"), "\(core.errorOutput)")
        if change == .replaced {
            #expect((try? String(contentsOfFile: journal.path + ".replaced", encoding: .utf8)) == "not a journal")
        }
        #expect(try await sandbox.client("send", "add", "six").status == 0)

        // The worst way to stop: whatever was only in memory is gone.
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        let restarted = try await sandbox.startCore()
        let state = try await sandbox.client("state")
        #expect(state.output.hasPrefix("revision 6: 6 items"), "\(state)\n\(restarted.errorOutput)")
        for text in ["one", "two", "three", "four", "five", "six"] {
            #expect(state.output.contains(" \(text)\n"), "\(text): \(state)")
        }
        restarted.process.send(SIGTERM)
        #expect(await restarted.process.waitForExit(timeout: .seconds(10)) == .exited(0))
    }
}
