import Synchronization
import Testing
@testable import ActorNode
import Wire

/// The effects an engine runs: the actions they send are applied like any other, each with the
/// next revision, in order (those sent at once right after the action, those of asynchronous
/// work as they arrive).
@Suite("Effects in the engine")
struct EngineEffectTests {
    final class Lines: Sendable {
        private let list = Mutex<[String]>([])
        func append(_ line: String) { list.withLock { $0.append(line) } }
        var all: [String] { list.withLock { $0 } }
        /// The `--trace` lines of applied actions, first line only: "trace rN from ORIGIN: ACTION".
        var applied: [String] { all.filter { $0.hasPrefix("trace r") }.map { String($0.prefix { $0 != "\n" }) } }
    }

    /// The first line `--trace` logs for an applied action.
    private func applied(_ revision: Int, from origin: String, _ action: Probe) throws -> String {
        "trace r\(revision) from \(origin): \(PeerText.forLog(try WireJSON.string(action), limit: 300))"
    }

    private func makeCore(_ lines: Lines, time: TestTime = TestTime()) -> CoreEngine<Int, Probe, ProbeEnvironment> {
        CoreEngine(
            state: 0, journal: nil, reducer: probeReducer, environment: ProbeEnvironment(time: time), time: time,
            trace: true, log: { lines.append($0) })
    }

    @Test("every applied action gets the next revision, its effects' actions included, in order")
    func revisions() async throws {
        let lines = Lines()
        let core = makeCore(lines)
        await core.send(.sendTwo)
        #expect(await core.current.revision == 3)
        #expect(await core.current.state == 3)
        #expect(lines.applied == [
            try applied(1, from: "the core", .sendTwo),
            try applied(2, from: "effect", .got(1)),
            try applied(3, from: "effect", .got(2)),
        ])
        await core.stop(reason: "test")
    }

    @Test("actions from asynchronous effects are applied as they arrive, until cancelled")
    func asynchronousEffects() async throws {
        let lines = Lines()
        let time = TestTime()
        let core = makeCore(lines, time: time)
        await core.send(.longSequence(id: "t"))
        // Each second, once the effect sleeps: it wakes, sends its next number, sleeps again.
        for (second, total) in [(1, 1), (2, 3)] {
            await waitFor("the effect to sleep before second \(second)") { time.sleeperCount == 1 }
            await time.advance(by: .seconds(1))
            await waitFor("the total \(total)") { await core.current.state == total }
        }
        #expect(await core.current.state == 3)
        await waitFor("the effect to sleep again") { time.sleeperCount == 1 }
        await core.send(.cancel(id: "t"))
        await waitFor("the cancelled effect to stop sleeping") { time.sleeperCount == 0 }
        let revision = await core.current.revision
        await time.advance(by: .seconds(1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(await core.current.revision == revision, "nothing after the cancellation")
        // The trace names the effect by its id.
        #expect(lines.applied.contains(try applied(2, from: "effect t", .got(1))), "\(lines.applied)")
        await core.stop(reason: "test")
    }
}
