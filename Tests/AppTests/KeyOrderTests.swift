import Glibc
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
    @Test("300 items typed in a row on the shell's loop are applied in the order typed", .timeLimit(.minutes(1)))
    func keysInOrder() async throws {
        // Not about the handshake's deadline (see InProcessShellTests.makeCore).
        var limits = CoreEngine<AppState, AppAction, AppEnvironment>.Limits()
        limits.handshakeTimeout = .seconds(120)
        let core = CoreEngine(state: AppState(), reducer: AppReducer.reducer, environment: AppEnvironment(), limits: limits)
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        await core.attach(fd: pair[0])
        var keys: [Int32] = [0, 0]
        #expect(pipe(&keys) == 0)
        // Every key at once, as a fast typist or a paste would give them: `a`, the text, Enter.
        let typed = (1 ... 300).map { "a\($0)\r" }.joined()
        let bytes = Array(typed.utf8)
        #expect(bytes.withUnsafeBytes { write(keys[1], $0.baseAddress, $0.count) } == bytes.count)
        let screen = BlockingWriter(fd: open("/dev/null", O_WRONLY | O_CLOEXEC), name: "test-screen")
        let socket = pair[1]
        let keysFD = keys[0]
        // The loop blocks in poll: on a thread of its own, as on the shell's main thread.
        let running = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<FullScreenOutcome?, Never>) in
                SystemThread.detach(name: "test-loop") {
                    let machine = ClientMachine(hello: Hello(role: .shell, client: "keys", name: "keys"), timeout: .seconds(30), reconnection: nil, mirrors: true)
                    let interface = ScreenInterface<TodoShell>(socket: "in-process", options: AttachOptions(), takesTerminal: false)
                    let loop = FullScreenLoop(machine: machine, interface: interface, signals: [], keys: keysFD, terminal: screen) { () throws(LinkError) -> Int32 in socket }
                    continuation.resume(returning: try? loop.run())
                }
            }
        }

        let deadline = ContinuousClock.now + .seconds(30)
        while await core.current.revision < 300, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let texts = await core.current.state.todo.items.map(\.text)
        #expect(texts == (1 ... 300).map(String.init))
        // The end of the keys ends the loop.
        close(keys[1])
        #expect(await running.value == .quit)
        close(keys[0])
    }
}
