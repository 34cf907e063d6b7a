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
        guard let first = SocketLock.holder(of: sandbox.socket) else {
            Issue.record("no core holds the socket lock")
            return
        }
        #expect(first != launcher.pid)

        kill(first, SIGKILL)
        await eventually("a new core serves") {
            guard let next = SocketLock.holder(of: sandbox.socket) else { return false }
            return next != first && UnixSocket.isServing(sandbox.socket)
        }
        let second = SocketLock.holder(of: sandbox.socket)
        let after = try await sandbox.client("send", "add", "after")
        #expect(after.status == 0, "\(after)")
        #expect(launcher.errorOutput.contains("core-daemon (pid \(first)) was killed by SIGKILL; restarting it"))

        launcher.process.send(SIGTERM)
        let termination = await launcher.process.waitForExit(timeout: .seconds(15))
        #expect(termination == .exited(0))
        #expect(!processExists(first))
        if let second { #expect(!processExists(second), "the restarted core must be stopped too") }
        #expect(!fileExists(sandbox.socket), "no socket may be left behind")
        #expect(!fileExists(sandbox.socket + ".lock"))
    }
}
