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
    /// The loop the engines of the journal's tests run on, apart from `EventLoop.shared`: under
    /// `--fsync always` an engine's end of turn takes in the events ready on its loop
    /// (`EventLoop.handleReadyNow`) before the jobs queued there, which on the shared loop would
    /// be other suites' engines' events and jobs (a notice posted before an action would then
    /// go out after the action's rendition).
    static let loop = try! EventLoop.make()

    /// A core's engine whose journal is in a fresh directory (or in `directory`, recovered from
    /// it first, as a core starts).
    struct Setup {
        let directory: TemporaryDirectory
        let files: StateFiles
        let core: CoreEngine<Int, Probe, ProbeEnvironment>

        init(threshold: Int = 1 << 20, policy: FsyncPolicy = .always, directory: TemporaryDirectory? = nil) throws {
            let directory = try directory ?? TemporaryDirectory()
            self.directory = directory
            files = StateFiles(directory: directory.path)
            let recovered = try Recovery.load(files, state: Int.self, action: Probe.self)
            let (state, revision, ledger, _) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
            let journal = try JournalWriter<Int>(files: files, policy: policy, nextRevision: revision + 1, snapshotThreshold: threshold) { _ in }
            // Not about the handshake's deadline (see CoreEngineTests.makeCore): a link's hello
            // waits for Swift's pool, which a full run keeps busy.
            var limits = CoreEngine<Int, Probe, ProbeEnvironment>.Limits()
            limits.handshakeTimeout = .seconds(120)
            core = CoreEngine(
                state: state, revision: revision, ledger: ledger, journal: journal,
                reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()), limits: limits, loop: JournalTests.loop)
        }

        /// Applies an action of the core's own, journaled at the end of its turn.
        func send(_ action: Probe) async {
            await core.send(action)
        }

        /// Ends the turn (its records written) and waits for a snapshot being written, so
        /// that every rotation so far has taken its snapshot.
        func settle() async {
            await core.settleJournal()
        }

        /// Stops the core: every record written and synced, the journal left open, as a crash
        /// leaves it.
        func flush() async {
            await core.stop(reason: "test")
        }

        /// Stops the core and closes its journal.
        func close() async {
            await core.stop(reason: "test")
            await core.closeJournal()
        }
    }

    @Test("what was committed recovers to the same state, revision and ledger")
    func roundTrip() async throws {
        let setup = try Setup()
        let session = try await InProcessSession.attach(to: setup.core)
        let link = ShellLink<Int, Probe>(session: session, hello: Hello(role: .script, client: "c", name: "journal"))
        // As long as the core's handshake deadline allows (Setup): CPU-bound tests can hold the
        // pool threads the link's welcome waits on for seconds in a full run.
        _ = try await link.open(timeout: .seconds(120))
        for value in 1 ... 20 {
            #expect(try await link.send(.got(value)) == .applied(revision: UInt64(value)))
        }
        await link.close()
        await setup.close()
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.map(\.revision) == Array(1 ... 20))
        #expect(recovered.tornTail == nil)
        let (state, revision, ledger, _) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
        #expect(state == 210)
        #expect(revision == 20)
        #expect(ledger.verdict(client: "c", seq: 7) == .applied(revision: 7))
    }

    @Test("a record cut short at the end is a torn tail: reported, not an error")
    func tornTail() async throws {
        let setup = try Setup()
        for value in 1 ... 3 { await setup.send(.got(value)) }
        await setup.close()
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
        for value in 1 ... 5 { await setup.send(.got(value)) }
        await setup.close()
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
            await setup.send(.got(value))
            if value % 20 == 0 { await setup.settle() }
        }
        await setup.close()
        #expect(!setup.files.snapshots().isEmpty)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.snapshot != nil)
        #expect(recovered.entries.count < 200)
        let (state, revision, _, _) = try recovered.replay(initial: 0, reducer: probeReducer, environment: ProbeEnvironment(time: TestTime()))
        #expect(state == 20100)
        #expect(revision == 200)
        #expect(setup.files.snapshots().count == 2, "the newest snapshot and the one before it, as a fallback")
        let previous = setup.files.snapshots()[1].revision
        #expect(setup.files.journals().first!.revision <= previous + 1, "the segments after the fallback stay")
        #expect(setup.files.journals().dropFirst().allSatisfy { $0.revision > previous + 1 }, "segments the fallback covers are removed")

        // Restarting on the same directory continues the revisions.
        setup = try Setup(threshold: 1024, directory: directory)
        await setup.send(.got(1))
        #expect(await setup.core.current.revision == 201)
        await setup.close()
        let again = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(again.lastRevision == 201)
    }
}
