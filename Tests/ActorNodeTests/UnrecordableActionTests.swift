import ActorNodeTesting
import FoundationEssentials
import Glibc
import Synchronization
import Testing
@testable import ActorNode
@testable import Wire

/// An applied action the journal cannot record (an effect's action whose JSON cannot be
/// written) stops the engine the way a journal that cannot be written does: nothing more is
/// acknowledged, the host is told, and the process goes on (the host decides how to end).
@Suite("An action the journal cannot record")
struct UnrecordableActionTests {
    enum Action: Codable, Sendable, Equatable {
        /// Sent by a client; its effect sends `.measure(.nan)`.
        case start
        case measure(Double)
    }

    static let reducer = Reducer<Double, Action, Void> { state, action, _ throws(Rejection) in
        switch action {
        case .start:
            return .send(.measure(.nan))
        case let .measure(value):
            state = value
            return .none
        }
    }

    @Test("a NaN in an effect's action: the engine reports a journal failure, acknowledges nothing more, and does not crash", .timeLimit(.minutes(1)))
    func unencodableEffectAction() async throws {
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        let journal = try JournalWriter<Double>(files: files, policy: .always, nextRevision: 1, snapshotThreshold: 1 << 20) { _ in }
        let failures = Mutex<[String]>([])
        let core = CoreEngine<Double, Action, Void>(
            state: 0, journal: journal, reducer: Self.reducer, environment: (), loop: JournalTests.loop,
            journalFailed: { failure in failures.withLock { $0.append(failure.reason) } })
        let session = try await InProcessSession.attach(to: core)
        let link = ShellLink<Double, Action>(session: session, hello: Hello(role: .script, client: "c1", name: "test"))
        // Longer than the usual 5 s: CPU-bound tests can hold the pool threads the link's
        // welcome waits on for seconds in a full run.
        _ = try await link.open(timeout: .seconds(60))
        // The client's own action is recorded, but in the turn whose effect cannot be: no ack.
        let answered = Task { try? await link.send(.start) }
        let deadline = ContinuousClock.now + .seconds(20)
        while failures.withLock({ $0.isEmpty }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let reasons = failures.withLock { $0 }
        #expect(reasons.count == 1)
        #expect(reasons.first?.hasPrefix("revision 2 could not be encoded for the journal") == true, "\(reasons)")
        // Nothing was acknowledged: the link's send is still waiting when the test closes it.
        try await Task.sleep(for: .milliseconds(200))
        await link.close()
        let outcome = await answered.value
        #expect(outcome == nil, "\(String(describing: outcome))")
    }

    @Test("a state that cannot be a snapshot, when the journal's file is removed: a journal failure, no crash")
    func unencodableSnapshot() throws {
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        let journal = try JournalWriter<Double>(files: files, policy: .always, nextRevision: 1, snapshotThreshold: 1 << 20) { _ in }
        journal.append(revision: 1, record: DurableRecord.encode(Array(#"{"revision":1}"#.utf8)))
        let latest = { SnapshotContent(revision: 1, at: 1, state: Double.nan, ledger: ClientLedger()) }
        try journal.commit(latest: latest)
        #expect(unlink(files.journals()[0].path) == 0)
        journal.append(revision: 2, record: DurableRecord.encode(Array(#"{"revision":2}"#.utf8)))
        #expect {
            try journal.commit(latest: latest)
        } throws: { error in
            (error as? JournalFailure)?.reason.contains("cannot be encoded as the snapshot that would replace it") == true
        }
        journal.closeBlocking()
    }
}
