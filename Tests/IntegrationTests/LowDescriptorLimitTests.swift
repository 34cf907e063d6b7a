import ActorNode
import Glibc
import Testing

/// A core started with a limit on open files too low to keep its reserve says so in one line,
/// before it opens anything, and exits with status 1; with enough, it serves under an identity
/// of its own. Before, at one limit it crashed making its event loop (a precondition on
/// eventfd); just above that it served as core 00000000-0000-4000-8000-000000000000
/// (Foundation's UUID with no descriptor left for /dev/urandom); and now and then, on a busy
/// machine, it was killed by SIGILL: libdispatch, which runs Swift's thread pool, opens a file
/// under /proc once a second while work waits for a thread, and ends the process when it
/// cannot (`_dispatch_workq_monitor_pools`), as happened while the core, out of descriptors,
/// was reporting why.
@Suite("A core under a low limit on open files")
struct LowDescriptorLimitTests {
    @Test("ulimit -n 8 to 40: one line and status 1 below 32, serving with a random id from 32; never a crash", .timeLimit(.minutes(2)))
    func sweep() async throws {
        var served = 0
        for limit in 8 ... 40 {
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
                #expect(limit < DescriptorLimit.minimumForCore, "ulimit -n \(limit) is enough to serve: \(core.errorOutput)")
                #expect(core.errorOutput == "core-daemon: cannot serve with a limit of \(limit) open files; a core needs at least 32: raise the limit ('ulimit -n')\n")
            } else {
                #expect(limit >= DescriptorLimit.minimumForCore)
                served += 1
                let serving = core.errorOutput.split(separator: "\n").first { $0.contains("serving ") } ?? ""
                #expect(!serving.contains("core 00000000-0000-4000-8000-000000000000"), "ulimit -n \(limit): \(serving)")
                core.process.send(SIGTERM)
                #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0), "ulimit -n \(limit): \(core.errorOutput)")
            }
        }
        #expect(served == 9)
    }
}
