import ActorNode
import Glibc
import Testing
import Wire

/// Principle 7 under fire: clients keep sending while the core is SIGKILLed again and again
/// under `cama-launch --headless`. Afterwards every acknowledged action is in the state exactly
/// once, and nothing appears twice.
@Suite("Crash recovery")
struct CrashRecoveryTests {
    @Test("concurrent senders, the core SIGKILLed four times along the way: every ack lands exactly once")
    func killedRepeatedly() async throws {
        let sandbox = try Sandbox()
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket])
        defer { launcher.process.send(SIGTERM) }
        await eventually("the first core serves") { UnixSocket.isServing(sandbox.socket) }

        let clients = 4
        let perClient = 100
        let total = UInt64(clients * perClient)
        let deadline = ContinuousClock.now + .seconds(90)
        // Each kill when the run has reached a point of its own (a tenth, then every fifth of
        // the actions): the clients are then in flight by construction, however fast this
        // machine is. (Kills at random moments in time used to land after a fast run had
        // ended, when nobody was in flight.)
        let kills = Task {
            var killed: [pid_t] = []
            for threshold in [total / 10, total * 3 / 10, total / 2, total * 7 / 10] {
                while ContinuousClock.now < deadline {
                    if let revision = await coreRevision(sandbox.socket), revision >= threshold { break }
                    try await Task.sleep(for: .milliseconds(2))
                }
                guard let core = await corePid(sandbox.socket) else { continue }
                kill(core, SIGKILL)
                killed.append(core)
                await eventually("a new core serves after killing \(core)", timeout: .seconds(20)) {
                    guard let next = await corePid(sandbox.socket) else { return false }
                    return next != core
                }
            }
            return killed
        }
        let results = try await withThrowingTaskGroup(of: (Int, RetryingClient.Result).self) { group in
            for client in 0 ..< clients {
                group.addTask {
                    let actions = (1 ... perClient).map { #"{"add":{"text":"c\#(client)-\#($0)"}}"# }
                    return (client, try await RetryingClient(socket: sandbox.socket, id: "crash-client-\(client)").send(actions, deadline: deadline))
                }
            }
            var all: [Int: RetryingClient.Result] = [:]
            for try await (client, result) in group { all[client] = result }
            return all
        }
        let killed = try await kills.value
        #expect(killed.count == 4, "the core was killed \(killed.count) times")
        #expect(results.values.reduce(0) { $0 + $1.reconnects } > 0, "the kills hit clients in flight")

        let state = try WireJSON.decode(JSONValue.self, from: Array(try await sandbox.client("state", "--json").output.utf8))
        guard case let .array(items)? = state["todo", "items"] else {
            Issue.record("no items")
            return
        }
        let texts = items.compactMap { $0["text"]?.stringValue }
        #expect(texts.count == Set(texts).count, "an action was applied twice: \(texts.count - Set(texts).count) duplicates")
        for client in 0 ..< clients {
            let mine = texts.filter { $0.hasPrefix("c\(client)-") }
            #expect(mine == (1 ... perClient).map { "c\(client)-\($0)" }, "client \(client)'s acknowledged actions, in order, once each")
            #expect(results[client]?.revisions.count == perClient)
        }
        #expect(state["revision"]?.intValue == Int64(clients * perClient), "one revision per applied action, none lost, none doubled")
        // Every ack named the revision the action really got: revisions are unique.
        let revisions = results.values.flatMap(\.revisions)
        #expect(Set(revisions).count == revisions.count)
    }
}
