import ActorNode
import Glibc
import Testing
import Wire

/// Under `--fsync always` (the default) the journal is laid out ahead with zeros; a core killed
/// with SIGKILL leaves them after its records. The next core takes them for the end of the
/// records, not for a torn write, cuts them off and continues after the last record.
@Suite("Journal reserve across a crash")
struct JournalReserveRestartTests {
    private func state(_ sandbox: Sandbox) async throws -> String {
        let result = try await sandbox.client("state", "--json")
        #expect(result.status == 0, "\(result)")
        return result.output
    }

    @Test("SIGKILL leaves zeros after the records; a restart recovers everything acknowledged, calls nothing torn, and cuts them off", .timeLimit(.minutes(1)))
    func restartAfterKill() async throws {
        let sandbox = try Sandbox()
        var core = try await sandbox.startCore()
        for number in 1 ... 3 { #expect(try await sandbox.client("send", "add", "item \(number)").status == 0) }
        let before = try await state(sandbox)
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()

        let files = StateFiles(directory: sandbox.stateDirectory)
        let journal = try #require(files.journals().last)
        #expect(FileIO.size(journal.path) == 1 << 20, "one step of zeros laid out ahead (1 MiB) is there after a crash")
        let records = try #require(Recovery.load(files, state: AppStateShape.self, action: JSONValue.self).journals.last?.bytes)

        core = try await sandbox.startCore()
        #expect(try await state(sandbox) == before)
        #expect(core.errorOutput.contains("recovered revision 3 from 3 journal records"), "\(core.errorOutput)")
        #expect(!core.errorOutput.contains("torn"), "\(core.errorOutput)")
        #expect(FileIO.size(journal.path) == records, "the zeros are cut off")

        // The next records go to a segment of their own, after the last one: a second crash
        // recovers them all.
        #expect(try await sandbox.client("send", "add", "item 4").status == 0)
        let after = try await state(sandbox)
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        core = try await sandbox.startCore()
        #expect(try await state(sandbox) == after)
        #expect(core.errorOutput.contains("recovered revision 4 from 4 journal records"), "\(core.errorOutput)")
        #expect(!core.errorOutput.contains("torn"), "\(core.errorOutput)")
    }
}
