import ActorNode
import Glibc
import Testing

/// `cama-launch --headless` keeps a core serving: SIGKILL the core and it comes back.
@Suite("Headless supervision")
struct HeadlessRestartTests {
    @Test("a core killed with SIGKILL under cama-launch --headless comes back and serves again; SIGTERM stops it all")
    func restartsKilledCore() async throws {
        let sandbox = try Sandbox()
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket])
        await eventually("the launcher's core serves") { UnixSocket.isServing(sandbox.socket) }
        #expect(try await sandbox.client("send", "add", "before").status == 0)
        guard let first = await corePid(sandbox.socket) else {
            Issue.record("no core answers")
            return
        }
        #expect(first != launcher.pid)
        #expect(SocketLock.holder(of: sandbox.socket) == launcher.pid, "the launcher owns the socket")

        kill(first, SIGKILL)
        var second: Int32?
        await eventually("a new core serves") {
            second = await corePid(sandbox.socket)
            return second != nil && second != first
        }
        let after = try await sandbox.client("send", "add", "after")
        #expect(after.status == 0, "\(after)")
        #expect(launcher.errorOutput.contains("core-daemon (pid \(first)) was killed by SIGKILL after"))
        #expect(try await sandbox.client("state").output.contains("2 items"), "the state survived the restart")

        launcher.process.send(SIGTERM)
        let termination = await launcher.process.waitForExit(timeout: .seconds(15))
        #expect(termination == .exited(0))
        #expect(!processExists(first))
        if let second { #expect(!processExists(second), "the restarted core must be stopped too") }
        #expect(!fileExists(sandbox.socket), "no socket may be left behind")
        #expect(!fileExists(sandbox.socket + ".lock"))
    }
}
