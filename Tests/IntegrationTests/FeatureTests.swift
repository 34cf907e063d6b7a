import ActorNode
import Glibc
import Testing
import Wire

/// The counter, the focus timer and pick, through the real binaries.
@Suite("Counter, timer and pick across processes")
struct FeatureTests {
    private func state(_ sandbox: Sandbox) async throws -> JSONValue {
        let result = try await sandbox.client("state", "--json")
        #expect(result.status == 0, "\(result)")
        return try WireJSON.decode(JSONValue.self, from: Array(result.output.utf8))
    }

    private func send(_ sandbox: Sandbox, _ words: String..., status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await sandbox.run(.shellClient, ["send"] + words + ["--socket", sandbox.socket])
        #expect(result.status == status, "send \(words.joined(separator: " ")): \(result)", sourceLocation: sourceLocation)
    }

    private func pomodoros(_ state: JSONValue) -> [Int64] {
        guard case let .array(items)? = state["todo", "items"] else { return [] }
        return items.compactMap { $0["pomodoros"]?.intValue }
    }

    @Test("the counter: increment, decrement, set, reset, and randomize through an effect")
    func counter() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        try await send(sandbox, "counter", "increment")
        try await send(sandbox, "counter", "increment")
        try await send(sandbox, "counter", "decrement")
        #expect(try await state(sandbox)["counter", "value"]?.intValue == 1)
        try await send(sandbox, "counter", "set", "-7")
        #expect(try await state(sandbox)["counter", "value"]?.intValue == -7)
        try await send(sandbox, "counter", "reset")
        #expect(try await state(sandbox)["counter", "value"]?.intValue == 0)
        let before = try await state(sandbox)["revision"]?.intValue ?? 0
        try await send(sandbox, "counter", "randomize")
        // randomize uses one revision; the random `set` its effect sends, the next.
        try await eventually("the random value arrives") { try await state(sandbox)["revision"]?.intValue == before + 2 }
        let value = try await state(sandbox)["counter", "value"]?.intValue ?? -1
        #expect((0 ... 10).contains(value))
        try await send(sandbox, "counter", "set", "x", status: 2)
    }

    @Test("a focus completes: the item gets a pomodoro and attached shells a notice")
    func timerCompletes() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        try await send(sandbox, "add", "buy milk")
        let watcher = try sandbox.start(.shellClient, ["watch", "--socket", sandbox.socket])
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }
        try await send(sandbox, "timer", "start", "1", "--seconds", "1")
        // The watcher saw it running (a `state` run after the send may come after the focus
        // ended, on a machine busy enough that a process takes a second to start).
        await eventually("the watcher shows the focus running") { watcher.output.contains("timer: focus on 1, ") }
        try await eventually("the focus completes") { pomodoros(try await state(sandbox)) == [1] }
        #expect(try await state(sandbox)["timer"] == .object(["item": .null, "running": .bool(false), "remaining": .integer(0), "deadline": .null]))
        await eventually("the watcher shows the notice") { watcher.output.contains("notice: focus on 1 'buy milk' is complete (1 pomodoro)") }
        #expect(watcher.output.contains("(1 pomodoro)\ncounter: 0\ntimer: idle"))
    }

    @Test("a new start replaces a running focus")
    func timerReplaces() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        try await send(sandbox, "add", "first")
        try await send(sandbox, "add", "second")
        try await send(sandbox, "timer", "start", "1", "--seconds", "30")
        try await send(sandbox, "--json", #"{"timer":{"start":{"id":2,"seconds":1}}}"#)
        try await eventually("the second focus completes") { pomodoros(try await state(sandbox)) == [0, 1] }
        #expect(try await state(sandbox)["timer", "running"] == .bool(false), "the first focus was replaced, not resumed")
    }

    @Test("stop cancels a focus: no tick follows, so it never completes")
    func timerStops() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        try await send(sandbox, "add", "stopped")
        try await send(sandbox, "add", "completed")
        // Thirty seconds: the stop comes long before the deadline even while the whole suite
        // shares two cores. There, commands took 4 s each in a CI run: a five-second focus could
        // complete before its stop arrived.
        try await send(sandbox, "timer", "start", "1", "--seconds", "30")
        try await send(sandbox, "timer", "stop")
        let stopped = try await state(sandbox)
        #expect(stopped["timer", "running"] == .bool(false))
        // Two and a half tick periods with nothing applied: the ticking ended with the stop.
        try await Task.sleep(for: .milliseconds(2500))
        let later = try await state(sandbox)
        #expect(later["revision"] == stopped["revision"], "nothing is applied after the stop")
        #expect(pomodoros(later) == [0, 0])
        // Ticks still run on this core: a focus started now completes.
        try await send(sandbox, "timer", "start", "2", "--seconds", "1")
        try await eventually("the second focus completes") { pomodoros(try await state(sandbox)) == [0, 1] }
    }

    @Test("pick focuses on an item that is not done; with none left it is rejected")
    func pick() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        try await send(sandbox, "add", "done already")
        try await send(sandbox, "add", "still to do")
        try await send(sandbox, "toggle", "1")
        try await send(sandbox, "pick")
        try await eventually("the picked focus starts") { try await state(sandbox)["timer", "item"]?.intValue == 2 }
        // 25 minutes, less the seconds a busy machine took to get here.
        let remaining = try await state(sandbox)["timer", "remaining"]?.intValue ?? 0
        #expect((1490 ... 1500).contains(remaining), "\(remaining)")
        try await send(sandbox, "timer", "stop")
        try await send(sandbox, "toggle", "2")
        let rejected = try await sandbox.client("send", "pick")
        #expect(rejected.status == 1)
        #expect(rejected.error == "shell-client: rejected: no item is left to do, so there is nothing to pick (nothing_to_pick)\n")
    }

    @Test("clients cannot send the timer's own ticks")
    func internalActionsRefused() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        let result = try await sandbox.client("send", "--json", #"{"timer":{"tick":{"at":0}}}"#)
        #expect(result.status == 1)
        #expect(result.error.contains("(internal_action)"))
        #expect(try await state(sandbox)["revision"]?.intValue == 0)
    }

    @Test("core-daemon --trace logs each action and what it changed")
    func trace() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--trace"])
        try await send(sandbox, "add", "traced")
        try await send(sandbox, "toggle", "1")
        try await send(sandbox, "toggle", "7", status: 1)
        try await send(sandbox, "--json", #"{"timer":{"tick":{"at":0}}}"#, status: 1)
        // The same action sent twice (as after a lost connection): acknowledged twice, applied once.
        let raw = try RawClient.connect(sandbox.socket)
        defer { raw.close() }
        try await raw.hello(role: "script")
        _ = try await raw.receive()
        for _ in 0 ..< 2 {
            try await raw.send(#"{"action":{"client":"raw-\#(getpid())","seq":1,"action":{"add":{"text":"twice"}}}}"#)
            #expect(try await raw.receive()?["ack", "revision"]?.intValue == 3)
        }
        await eventually("the trace is written") { core.errorOutput.contains("acknowledged again") }
        let log = core.errorOutput
        #expect(log.contains(#"trace duplicate from client raw-\#(getpid()) #1: {"add":{"text":"twice"}}: already applied at r3; acknowledged again"#))
        #expect(log.contains(#"trace r1 from client "#))
        #expect(log.contains(#"+ /todo/items/0: {"done":false,"id":1,"pomodoros":0,"text":"traced"}"#))
        #expect(log.contains("~ /todo/nextId: 1 -> 2"))
        #expect(log.contains("~ /todo/items/0/done: false -> true"))
        #expect(log.contains(#"{"toggle":{"id":7}}: no item with id 7 (unknown_item)"#))
        #expect(log.contains(#"trace rejected from client "#) && log.contains(#"{"timer":{"tick":{"at":0}}}: this action is the core's own"#))
    }
}
