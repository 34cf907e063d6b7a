import Glibc
import Testing
@testable import ActorNode
import Wire

/// Telling a torn write (never acknowledged, safe to drop) from damage (refuse, name it, let
/// `--repair` cut it), and falling back when a snapshot is damaged.
@Suite("Journal damage")
struct JournalDamageTests {
    private typealias Setup = JournalTests.Setup

    /// A directory whose journal holds `count` records (got 1 ... got count).
    private func journal(_ count: Int, threshold: Int = 1 << 20) async throws -> Setup {
        let setup = try Setup(threshold: threshold)
        for value in 1 ... count {
            await setup.send(.got(value))
            // Let each rotation take its snapshot, so the directory holds two of them.
            if value % 20 == 0 { await setup.settle() }
        }
        await setup.close()
        return setup
    }

    private func append(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test("zeros after the last record (blocks the crash never wrote, or laid out ahead) end the records: nothing torn")
    func zeroTail() async throws {
        let setup = try await journal(3)
        let path = setup.files.journals().last!.path
        let size = try FileIO.read(path).count
        append([UInt8](repeating: 0, count: 4096), to: path)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.count == 3)
        #expect(recovered.tornTail == nil)
        #expect(recovered.reserve?.offset == size)
        #expect(recovered.reserve?.bytes == 4096)
    }

    @Test("a last record whose payload ends in zeros is a write cut short: torn")
    func zeroFilledPayload() async throws {
        let setup = try await journal(3)
        let path = setup.files.journals().last!.path
        var record = DurableRecord.encode(Array(#"{"action":{"got":{"_0":4}},"at":0,"revision":4}"#.utf8))
        for index in record.count - 10 ..< record.count { record[index] = 0 }
        append(record, to: path)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.count == 3)
        #expect(recovered.tornTail != nil)
    }

    @Test("a complete last record with a bad checksum and no zeros is damage, not a torn write")
    func damagedLastRecord() async throws {
        let setup = try await journal(3)
        let segment = setup.files.journals().last!
        var bytes = try FileIO.read(segment.path)
        var offset = 0
        var last = 0
        while case let .record(_, next) = DurableRecord.scan(bytes, at: offset) {
            last = offset
            offset = next
        }
        bytes[bytes.count - 3] ^= 0x01
        try FileIO.writeAtomically(segment.path, bytes)
        do {
            _ = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
            Issue.record("a damaged, possibly acknowledged record was dropped silently")
        } catch {
            #expect(error.offset == last)
            #expect(error.repairable)
            #expect(error.reason == "checksum mismatch, in the last record, which is complete and may have been acknowledged")
        }
        let done = try StateDirectoryTool.repair(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(done.first == "truncated \(segment.name) at offset \(last) (dropped \(bytes.count - last) bytes)")
        #expect(try Recovery.load(setup.files, state: Int.self, action: Probe.self).lastRevision == 2)
    }

    @Test("a damaged newest snapshot: recovery falls back on the previous one and its journal, losing nothing")
    func snapshotFallback() async throws {
        let setup = try await journal(200, threshold: 1024)
        let snapshots = setup.files.snapshots()
        #expect(snapshots.count == 2)
        var bytes = try FileIO.read(snapshots[0].path)
        bytes[bytes.count / 2] ^= 0x01
        try FileIO.writeAtomically(snapshots[0].path, bytes)

        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.snapshotFile == snapshots[1].name)
        #expect(recovered.notes == ["\(snapshots[0].name) is damaged; trying an older snapshot"])
        let (state, revision, _, _) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
        #expect(state == 20100)
        #expect(revision == 200)
    }

    @Test("no usable snapshot and the journal's start gone: refused, not repairable, and --repair touches nothing")
    func missingBeginning() async throws {
        let setup = try await journal(200, threshold: 1024)
        for snapshot in setup.files.snapshots() {
            var bytes = try FileIO.read(snapshot.path)
            bytes[bytes.count / 2] ^= 0x01
            try FileIO.writeAtomically(snapshot.path, bytes)
        }
        let journalsBefore = setup.files.journals().map(\.name)
        let sizesBefore = setup.files.journals().map { FileIO.size($0.path) }
        let first = setup.files.journals().first!

        let (report, healthy) = StateDirectoryTool.check(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(!healthy)
        #expect(report.contains { $0.hasSuffix(" is damaged; trying an older snapshot") }, "\(report)")
        #expect(report.contains { $0.contains("\(first.name) at offset 0: the journal resumes at revision \(first.revision)") && $0.contains("the snapshot that held them is damaged") }, "\(report)")
        #expect(report.last == "the core refuses to start; this is not something --repair can fix")

        #expect(throws: RecoveryFailure.self) {
            try StateDirectoryTool.repair(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        }
        #expect(setup.files.journals().map(\.name) == journalsBefore)
        #expect(setup.files.journals().map { FileIO.size($0.path) } == sizesBefore)
    }

    @Test("--check: a missing directory is not healthy; an interrupted snapshot's leftover is named")
    func checkReports() async throws {
        let missing = StateFiles(directory: "/tmp/cama-unit-does-not-exist-\(getpid())")
        let (missingReport, missingHealthy) = StateDirectoryTool.check(missing, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(!missingHealthy)
        #expect(missingReport.last == "it does not exist: a core started with it would create it and start from the empty state")

        let setup = try await journal(3)
        let leftover = setup.files.path(StateFiles.snapshotName(at: 3) + ".tmp")
        try FileIO.writeAtomically(leftover + "x", [1, 2, 3])
        rename(leftover + "x", leftover)
        let (report, healthy) = StateDirectoryTool.check(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(healthy)
        #expect(report.contains("\(StateFiles.snapshotName(at: 3)).tmp: left by an interrupted snapshot; removed at startup"))
        #expect(report.last == "replays through this version of the app to revision 3: sound")
    }
}
