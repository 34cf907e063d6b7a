import ActorNode
import Glibc
import Testing

/// A core started with too few descriptors says which one it could not get, in one line, and
/// exits with status 1; with just enough, it serves under an identity of its own. Before, at
/// one limit it crashed making its event loop (a precondition on eventfd), and just above
/// that it served as core 00000000-0000-4000-8000-000000000000 (Foundation's UUID with no
/// descriptor left for /dev/urandom).
@Suite("A core under a low limit on open files")
struct LowDescriptorLimitTests {
    @Test("ulimit -n 8 to 20: one line and status 1, or serving with a random id; never a crash", .timeLimit(.minutes(2)))
    func sweep() async throws {
        var served = 0
        for limit in 8 ... 20 {
            let sandbox = try Sandbox()
            let core = try sandbox.start(
                executable: "/bin/sh", name: "limited-core",
                ["-c", "ulimit -n \(limit); exec \"$0\" \"$@\"", Binary.coreDaemon.path, "--socket", sandbox.socket])
            // (Its log line, not a connection: the socket takes connections into its backlog
            // from the moment it is bound, before the core knows it can serve them.)
            await eventually("the core under ulimit -n \(limit) serves or ends") {
                core.errorOutput.contains(" serving ") || core.process.termination != nil
            }
            if let termination = core.process.termination {
                #expect(termination == .exited(1), "ulimit -n \(limit): \(termination): \(core.errorOutput)")
                let lines = core.errorOutput.split(separator: "\n")
                let said = lines.filter { $0.hasPrefix("core-daemon: ") }
                #expect(said.count == 1 && said.last == lines.last, "ulimit -n \(limit): \(core.errorOutput)")
                #expect(said.last?.contains("Too many open files") == true, "ulimit -n \(limit): \(core.errorOutput)")
            } else {
                served += 1
                let serving = core.errorOutput.split(separator: "\n").first { $0.contains("serving ") } ?? ""
                #expect(!serving.contains("core 00000000-0000-4000-8000-000000000000"), "ulimit -n \(limit): \(serving)")
                core.process.send(SIGTERM)
                #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0), "ulimit -n \(limit): \(core.errorOutput)")
            }
        }
        #expect(served > 0, "no limit up to 20 was enough to serve")
    }
}
