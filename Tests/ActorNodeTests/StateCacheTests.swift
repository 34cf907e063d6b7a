import Testing
@testable import ActorNode
@testable import Wire

/// The state's JSON, encoded once for the welcomes and snapshots of a revision, is let go once
/// the revision moves on: no later welcome can use it, and at 100,000 items it is as large as
/// the state again.
@Suite("The engine's cached state JSON")
struct StateCacheTests {
    enum Step: Codable, Sendable, Equatable {
        case add(Int)
    }

    typealias Engine = CoreEngine<Int, Step, Void>

    static let reducer = Reducer<Int, Step, Void> { state, action, _ in
        if case let .add(amount) = action { state += amount }
        return .none
    }

    @Test("a welcome caches the state's JSON; the next applied action lets it go", .timeLimit(.minutes(1)))
    func droppedWhenTheRevisionMoves() async throws {
        var limits = Engine.Limits()
        limits.handshakeTimeout = .seconds(120)
        let core = Engine(state: 0, reducer: Self.reducer, environment: (), limits: limits)
        let session = try await InProcessSession.attach(to: core)
        let link = ShellLink<Int, Step>(session: session, hello: Hello(role: .shell, client: "cache-test", name: "test"))
        _ = try await link.open(timeout: .seconds(120))
        // The shell's welcome carried the state at revision 0, encoded once and kept.
        #expect(await core.stateCache?.revision == 0)
        #expect(try await link.send(.add(3)) == .applied(revision: 1))
        #expect(await core.stateCache == nil)
    }
}
