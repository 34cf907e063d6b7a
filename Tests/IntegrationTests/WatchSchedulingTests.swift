import ActorNode
import Glibc
import Testing

/// A `watch` runs as batch work (SCHED_BATCH), so that the watchers a core wakes while it writes
/// a change to each never preempt it; the core and an interactive command stay as they are.
@Suite("How a watcher is scheduled")
struct WatchSchedulingTests {
    @Test("a watch is SCHED_BATCH, the core is not, and the watch still prints the next state at once", .timeLimit(.minutes(1)))
    func watchIsBatchWork() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--fsync", "never"])
        let watcher = try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket])
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }

        #expect(try Self.policy(of: watcher.pid) == Self.batch, "the watcher's main thread")
        #expect(try Self.policy(of: core.pid) == Self.normal, "the core")

        // Batch work waits for no one on an idle machine: the change is printed.
        let sent = try await sandbox.client("send", "counter", "increment")
        #expect(sent.status == 0, "\(sent)")
        await eventually("the watcher prints revision 1") { watcher.output.contains(#""revision":1,"#) }
        #expect(watcher.output.contains(#""counter":{"value":1}"#), "\(watcher.output)")
        watcher.process.send(SIGTERM)
        core.process.send(SIGTERM)
    }

    /// SCHED_OTHER and SCHED_BATCH, as Linux numbers them.
    private static let normal = 0
    private static let batch = 3

    /// The scheduling policy of a process's main thread: field 41 of `/proc/PID/stat`, counted
    /// after the command's name (in parentheses, which may hold spaces).
    private static func policy(of pid: pid_t) throws -> Int? {
        let text = String(decoding: try FileIO.read("/proc/\(pid)/stat"), as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state).
        return fields.count > 38 ? Int(fields[38]) : nil
    }
}
