import Synchronization
import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import ShellClient
@testable import TodoContract
@testable import Wire

/// Location transparency: the to-do Core and the line-mode Shell, the same code that runs in
/// core-daemon and shell-client, wired in one process over a socketpair, with no socket path.
@Suite("To-do Core and Shell in one process")
struct InProcessShellTests {
    private func makeCore() -> CoreEngine<AppState, AppAction, AppEnvironment> {
        // Not about the handshake's deadline: in a full run, CPU-bound tests can hold Swift's two
        // pool threads for longer than the usual 10 s before a link's hello is written (as in
        // CoreEngineTests; seen failing with handshake_timeout in a full run beside a build).
        var limits = CoreEngine<AppState, AppAction, AppEnvironment>.Limits()
        limits.handshakeTimeout = .seconds(120)
        return CoreEngine(state: AppState(), reducer: AppReducer.reducer, environment: AppEnvironment(), limits: limits)
    }

    private func link(to core: CoreEngine<AppState, AppAction, AppEnvironment>, role: ClientRole, name: String) async throws -> ShellLink<AppState, AppAction> {
        let session = try await InProcessSession.attach(to: core, peer: name)
        let link = ShellLink<AppState, AppAction>(session: session, hello: Hello(role: role, client: name, name: name))
        // As long as the core's handshake deadline above allows: the link waits for its welcome on
        // the same two pool threads that CPU-bound tests hold in a full run (seen: "the core did
        // not answer hello within 5 s").
        _ = try await link.open(timeout: .seconds(120))
        return link
    }

    @Test("typed lines change the core's state, and the shell shows every change, its own and others'")
    func lineShellOverChannels() async throws {
        let core = makeCore()
        let shellLink = try await link(to: core, role: .shell, name: "shell")
        let other = try await link(to: core, role: .script, name: "other")
        let input = Chan<String>()
        let printed = Printed()
        let shell = LineShell<TodoShell>(link: shellLink, input: input, output: { printed.append($0) })
        let running = Task { try await shell.run() }

        await input <- #"add "buy milk""#
        await input <- "add eggs"
        await input <- "toggle 99"
        try await waitFor { printed.text.contains("rejected: no item with id 99") }
        #expect(try await other.send(.todo(.toggle(id: 1))) == .applied(revision: 3))
        try await waitFor { printed.text.contains("revision 3:") }
        await input <- "move 2 1"
        await input <- "quit"
        #expect(try await running.value == .success)

        let final = await core.current
        #expect(final.revision == 4)
        #expect(final.state.todo.items.map(\.text) == ["eggs", "buy milk"])
        #expect(printed.text.hasSuffix("""
        revision 4: 2 items, 1 done
          2 [ ] eggs
          1 [x] buy milk
        counter: 0
        timer: idle

        """))
    }

    @Test("several shells converge on the core's state")
    func convergence() async throws {
        let core = makeCore()
        let watchers = try await (0 ..< 3).asyncMap { try await link(to: core, role: .watcher, name: "w\($0)") }
        let senders = try await (0 ..< 2).asyncMap { try await link(to: core, role: .script, name: "s\($0)") }
        await withTaskGroup(of: Void.self) { group in
            for (index, sender) in senders.enumerated() {
                group.addTask {
                    for number in 1 ... 40 {
                        _ = try? await sender.send(.todo(.add(text: "s\(index)-\(number)")))
                    }
                }
            }
        }
        let final = await core.current
        #expect(final.revision == 80)
        for watcher in watchers {
            var last: (UInt64, AppState)?
            for await event in watcher.events {
                if case let .state(revision, state) = event { last = (revision, state) }
                if last?.0 == final.revision { break }
            }
            #expect(last?.1 == final.state)
        }
    }

    /// Waits until `condition` holds. The deadline is generous: everything here runs on Swift's
    /// two pool threads, which a full run's CPU-bound tests can hold for many seconds (this
    /// waited past 10 s in one CI run, beside the tests of the ssh route's processes).
    private func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within 60 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Text a shell printed, collected from any thread.
final class Printed: Sendable {
    private let storage = Mutex("")
    func append(_ text: String) { storage.withLock { $0 += text } }
    var text: String { storage.withLock { $0 } }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
