import ActorNodeTesting
import FoundationEssentials
import Glibc
import Synchronization
import Testing
@testable import ActorNode
import Wire

/// Replays a probe journal, as `--check` and `--repair` do with the app's reducers.
let probeReplay: StateDirectoryTool.Replay<Int, Probe> = { log throws(RecoveryFailure) in
    _ = try log.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
}

/// The journal on real files: what it writes, what recovery reads back, and how damage is told
/// apart.
@Suite("Journal and recovery")
struct JournalTests {
    /// A store whose transitions go through a journal in a fresh directory.
    struct Setup {
        let directory: TemporaryDirectory
        let files: StateFiles
        let journal: Journal<Int, Probe>
        let store: Store<Int, Probe, ProbeEnvironment>

        init(threshold: Int = 1 << 20, policy: FsyncPolicy = .always, directory: TemporaryDirectory? = nil) throws {
            let directory = try directory ?? TemporaryDirectory()
            self.directory = directory
            files = StateFiles(directory: directory.path)
            let recovered = try Recovery.load(files, state: Int.self, action: Probe.self)
            let (state, revision, ledger) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
            let journal = try Journal<Int, Probe>(files: files, policy: policy, nextRevision: revision + 1, snapshotThreshold: threshold) { _ in }
            self.journal = journal
            store = Store(state: state, revision: revision, ledger: ledger, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()), observe: { event in
                if case let .applied(transition) = event { journal.commit(transition) {} }
            })
        }
    }

    @Test("what was committed recovers to the same state, revision and ledger")
    func roundTrip() async throws {
        let setup = try Setup()
        for value in 1 ... 20 {
            await setup.store.send(.got(value), from: .client(id: "c", seq: UInt64(value)))
        }
        await setup.journal.close()
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.map(\.revision) == Array(1 ... 20))
        #expect(recovered.tornTail == nil)
        let (state, revision, ledger) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
        #expect(state == 210)
        #expect(revision == 20)
        #expect(ledger.verdict(client: "c", seq: 7) == .applied(revision: 7))
    }

    @Test("releases run only after their records are written, in order")
    func releasesFollowWrites() async throws {
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        let journal = try Journal<Int, Probe>(files: files, policy: .always, nextRevision: 1) { _ in }
        let seen = Log()
        for revision in UInt64(1) ... 30 {
            let transition = Transition<Int, Probe>(action: .got(1), origin: .effect, revision: revision, at: Date(), previous: nil, state: Int(revision), ledger: ClientLedger())
            journal.commit(transition) {
                let size = FileIO.size(files.path(StateFiles.journalName(startingAt: 1))) ?? 0
                let written = (try? Recovery.load(files, state: Int.self, action: Probe.self).entries.count) ?? -1
                seen.append("\(revision):\(written >= Int(revision) && size > 0)")
            }
        }
        journal.then { seen.append("then") }
        await journal.close()
        #expect(seen.all == (1 ... 30).map { "\($0):true" } + ["then"])
    }

    @Test("a record cut short at the end is a torn tail: reported, not an error")
    func tornTail() async throws {
        let setup = try Setup()
        for value in 1 ... 3 { await setup.store.send(.got(value)) }
        await setup.journal.close()
        let path = setup.files.journals().last!.path
        let bytes = try FileIO.read(path)
        let fd = open(path, O_WRONLY | O_APPEND)
        let partial = Array(DurableRecord.encode(Array(#"{"revision":4,"at":0,"action":{"got":{"_0":4}}}"#.utf8)).prefix(20))
        _ = partial.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.count == 3)
        #expect(recovered.tornTail?.offset == bytes.count)
        #expect(recovered.tornTail?.bytes == 20)
    }

    @Test("a damaged record with records after it is corruption, named by file and offset; repair cuts it")
    func corruptionAndRepair() async throws {
        let setup = try Setup()
        for value in 1 ... 5 { await setup.store.send(.got(value)) }
        await setup.journal.close()
        let segment = setup.files.journals().last!
        var bytes = try FileIO.read(segment.path)
        guard case let .record(_, second) = DurableRecord.scan(bytes, at: 0) else { Issue.record("no record"); return }
        bytes[second + 12] ^= 0x20
        try FileIO.writeAtomically(segment.path, bytes)
        do {
            _ = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
            Issue.record("corruption was not noticed")
        } catch {
            #expect(error.file == segment.name)
            #expect(error.offset == second)
            #expect(error.repairable)
        }
        let (report, healthy) = StateDirectoryTool.check(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(!healthy)
        #expect(report.contains { $0.contains("\(segment.name) at offset \(second): checksum mismatch") })
        let done = try StateDirectoryTool.repair(setup.files, state: Int.self, action: Probe.self, replay: probeReplay)
        #expect(done.first == "truncated \(segment.name) at offset \(second) (dropped \(bytes.count - second) bytes)")
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.lastRevision == 1)
    }

    @Test("past the threshold a snapshot is taken, older segments go, and recovery starts from it")
    func snapshots() async throws {
        let directory = try TemporaryDirectory()
        var setup = try Setup(threshold: 1024, directory: directory)
        for value in 1 ... 200 {
            await setup.store.send(.got(value))
            if value % 20 == 0 { await setup.journal.settle() }
        }
        await setup.journal.close()
        #expect(!setup.files.snapshots().isEmpty)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.snapshot != nil)
        #expect(recovered.entries.count < 200)
        let (state, revision, _) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
        #expect(state == 20100)
        #expect(revision == 200)
        #expect(setup.files.snapshots().count == 2, "the newest snapshot and the one before it, as a fallback")
        let previous = setup.files.snapshots()[1].revision
        #expect(setup.files.journals().first!.revision <= previous + 1, "the segments after the fallback stay")
        #expect(setup.files.journals().dropFirst().allSatisfy { $0.revision > previous + 1 }, "segments the fallback covers are removed")

        // Restarting on the same directory continues the revisions.
        setup = try Setup(threshold: 1024, directory: directory)
        await setup.store.send(.got(1))
        #expect(await setup.store.current.revision == 201)
        await setup.journal.close()
        let again = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(again.lastRevision == 201)
    }
}
