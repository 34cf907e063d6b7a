import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import ShellClient
@testable import TodoContract
@testable import Wire

/// The full-screen shell sends each key's action in the order the keys were typed, however
/// fast they come: `J J`, or toggle then remove, are never applied the other way round.
@Suite("Keys in order")
struct KeyOrderTests {
    @Test("300 keys typed in a row are applied in the order typed", .timeLimit(.minutes(1)))
    func keysInOrder() async throws {
        // Not about the handshake's deadline (see InProcessShellTests.makeCore).
        var limits = CoreEngine<AppState, AppAction, AppEnvironment>.Limits()
        limits.handshakeTimeout = .seconds(120)
        let core = CoreEngine(state: AppState(), reducer: AppReducer.reducer, environment: AppEnvironment(), limits: limits)
        let session = try await InProcessSession.attach(to: core)
        let link = ShellLink<AppState, AppAction>(session: session, hello: Hello(role: .shell, client: "keys", name: "keys"))
        _ = try await link.open()
        let inputs = Chan<FullScreenShell.Input>()
        for number in 1 ... 300 {
            // What the screen loop does for each key that makes an action.
            await FullScreenShell.submit(.todo(.add(text: "\(number)")), to: link, reporting: inputs)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while await core.current.revision < 300, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let texts = await core.current.state.todo.items.map(\.text)
        #expect(texts == (1 ... 300).map(String.init))
        #expect(inputs.count == 0, "no action failed or was rejected")
    }
}
