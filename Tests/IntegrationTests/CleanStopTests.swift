import ActorNode
import FoundationEssentials
import Glibc
import Testing

/// Stopping cleanly leaves no process and no socket behind, whichever way the core runs.
@Suite("Clean stops")
struct CleanStopTests {
    @Test("SIGTERM to core-daemon says bye to shells, removes the socket and exits 0")
    func coreDaemonSigterm() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let watcher = try sandbox.start(.shellClient, ["watch", "--socket", sandbox.socket])
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }
        core.process.send(SIGTERM)
        #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(await watcher.process.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(watcher.errorOutput.contains("the core said goodbye"))
        #expect(!watcher.errorOutput.contains("reconnecting"), "a core stopped for good is not waited for: \(watcher.errorOutput)")
        #expect(!fileExists(sandbox.socket))
        #expect(!fileExists(sandbox.socket + ".lock"))
    }

    @Test("SIGINT stops core-daemon the same way")
    func coreDaemonSigint() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        core.process.send(SIGINT)
        #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0))
        #expect(!fileExists(sandbox.socket))
    }

    @Test("--detach returns once the core serves; status shows it; stop ends the core and its launcher")
    func detachStatusStop() async throws {
        let sandbox = try Sandbox()
        let detach = try await sandbox.run(.camaLaunch, ["--detach", "--socket", sandbox.socket, "--state-dir", sandbox.directory + "/state"])
        #expect(detach.status == 0, "\(detach)")
        #expect(UnixSocket.isServing(sandbox.socket), "--detach must return only once the core serves")
        let launcherPid = detach.output.split(separator: " ").firstIndex(of: "pid").flatMap { index in
            pid_t(detach.output.split(separator: " ")[index + 1].filter(\.isNumber))
        }
        #expect(launcherPid != nil, "\(detach.output)")
        let core = await corePid(sandbox.socket)
        defer {
            if let launcherPid { kill(launcherPid, SIGKILL) }
        }
        #expect(SocketLock.holder(of: sandbox.socket) == launcherPid)

        #expect(try await sandbox.client("send", "add", "x").status == 0)
        let status = try await sandbox.run(.camaLaunch, ["status", "--socket", sandbox.socket])
        #expect(status.status == 0, "\(status)")
        #expect(status.output.contains("revision:  1"))
        #expect(status.output.contains("shells:    0 attached"))
        if let launcherPid { #expect(status.output.contains("launcher:  pid \(launcherPid), supervising for")) }
        #expect(status.output.contains("0 restarts"))
        if let core { #expect(status.output.contains("core:      pid \(core), up ")) }
        // The run's id, as the welcome gave it (a UUID).
        #expect(status.output.contains(try Regex("instance [0-9a-f]{8}-[0-9a-f]{4}-")), "\(status.output)")

        let stop = try await sandbox.run(.camaLaunch, ["stop", "--socket", sandbox.socket])
        #expect(stop.status == 0, "\(stop)")
        #expect(!UnixSocket.isServing(sandbox.socket))
        #expect(!fileExists(sandbox.socket))
        if let core { #expect(!processExists(core)) }
        if let launcherPid {
            await eventually("the detached launcher exits") { !processExists(launcherPid) }
        }

        let again = try await sandbox.run(.camaLaunch, ["stop", "--socket", sandbox.socket])
        #expect(again.status == 3)
        #expect(again.error == "cama-launch: no core is running on \(sandbox.socket)\n")
    }

    @Test("cama-launch starts a core and a shell; quitting the shell stops that core")
    func interactiveQuitStopsCore() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(.camaLaunch, ["--socket", sandbox.socket, "--state-dir", sandbox.stateDirectory], input: "add hello from the launcher\nquit\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("1 [ ] hello from the launcher"))
        #expect(result.error.isEmpty, "the core logs to its file, not over the shell: \(result.error)")
        #expect(!fileExists(sandbox.socket))
        #expect(SocketLock.holder(of: sandbox.socket) == nil)
        let log = sandbox.coreLog
        #expect(log.contains("core-daemon"))
        #expect(log.contains("received SIGTERM; shutting down"))
    }

    @Test("cama-launch attaches to a core that already serves, and leaves it running")
    func interactiveAttachesToExistingCore() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let result = try await sandbox.run(.camaLaunch, ["--socket", sandbox.socket, "--state-dir", sandbox.directory + "/state"], input: "add kept\nquit\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.error.contains("a core already serves"))
        #expect(core.process.termination == nil)
        #expect(try await sandbox.client("state").output.contains("kept"))
    }
}
