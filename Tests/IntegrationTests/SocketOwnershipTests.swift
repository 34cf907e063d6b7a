import ActorNode
import FoundationEssentials
import Glibc
import Testing

/// One core per socket: a second one refuses, a dead one's socket is replaced, unsafe places
/// are refused with a reason.
@Suite("Socket ownership")
struct SocketOwnershipTests {
    @Test("a second core on a live socket refuses with a clear error and leaves the first alone")
    func secondCoreRefuses() async throws {
        let sandbox = try Sandbox()
        let first = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "mine").status == 0)
        let second = try await sandbox.run(.coreDaemon, ["--socket", sandbox.socket])
        #expect(second.status == 1)
        #expect(second.error == "core-daemon: a core is already serving \(sandbox.socket) (pid \(first.pid)); stop it with 'cama-launch stop --socket \(sandbox.socket)' or choose another --socket\n")
        #expect(first.process.termination == nil)
        #expect(try await sandbox.client("state").output.contains("mine"))
        let headless = try await sandbox.run(.camaLaunch, ["--headless", "--socket", sandbox.socket])
        #expect(headless.status == 1)
        #expect(headless.error.contains("a core already serves"))
    }

    @Test("a socket file left by a core that died is replaced")
    func staleSocketReplaced() async throws {
        let sandbox = try Sandbox()
        try await sandbox.leaveStaleSocket()
        #expect(fileExists(sandbox.socket), "SIGKILL leaves the socket file")
        let next = try await sandbox.startCore()
        #expect(UnixSocket.isServing(sandbox.socket))
        #expect(next.errorOutput.contains("removed a stale socket"))
        #expect(try await sandbox.client("send", "add", "works").status == 0)
    }

    @Test("a detached launcher that replaces a stale socket says so in core.log")
    func staleSocketReplacedByDetachedLauncher() async throws {
        let sandbox = try Sandbox()
        try await sandbox.leaveStaleSocket()
        #expect(fileExists(sandbox.socket), "SIGKILL leaves the socket file")
        let detach = try await sandbox.run(.camaLaunch, ["--detach", "--socket", sandbox.socket])
        #expect(detach.status == 0, "\(detach)")
        defer {
            if let launcher = SocketLock.holder(of: sandbox.socket) { kill(launcher, SIGKILL) }
        }
        let log = sandbox.coreLog
        #expect(log.contains("cama-launch[") && log.contains("]: removed a stale socket left by a core that is gone"), "\(log)")
        #expect(try await sandbox.client("send", "add", "works").status == 0)
        #expect(try await sandbox.run(.camaLaunch, ["stop", "--socket", sandbox.socket]).status == 0)
    }

    @Test("a file that is not a socket is never removed")
    func refusesNonSocket() async throws {
        let sandbox = try Sandbox()
        try Data("precious".utf8).write(to: URL(fileURLWithPath: sandbox.socket))
        let result = try await sandbox.run(.coreDaemon, ["--socket", sandbox.socket])
        #expect(result.status == 1)
        #expect(result.error.contains("exists and is not a socket"))
        #expect((try? String(contentsOfFile: sandbox.socket, encoding: .utf8)) == "precious")
    }

    @Test("a socket directory open to others is refused; a missing one is created 0700 with a 0600 socket")
    func directoryPermissions() async throws {
        let sandbox = try Sandbox()
        let open = sandbox.directory + "/open"
        mkdir(open, 0o755)
        chmod(open, 0o755)
        let refused = try await sandbox.run(.coreDaemon, ["--socket", open + "/core.sock"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("open to other users (mode 0755)"))

        let created = sandbox.directory + "/new/dir"
        let core = try sandbox.start(.coreDaemon, ["--socket", created + "/core.sock"])
        defer { core.process.send(SIGKILL) }
        await eventually("the core serves in the new directory") { UnixSocket.isServing(created + "/core.sock") }
        var info = stat()
        stat(created, &info)
        #expect(info.st_mode & 0o777 == 0o700)
        stat(created + "/core.sock", &info)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("a socket path too long for sun_path is a usage error for every command", arguments: Binary.allCases)
    func pathTooLong(binary: Binary) async throws {
        let sandbox = try Sandbox()
        let long = sandbox.directory + "/" + String(repeating: "s", count: 120) + ".sock"
        let arguments = [.shellClient, .chatShell].contains(binary) ? ["state", "--socket", long] : ["--socket", long]
        let result = try await sandbox.run(binary, arguments, input: "quit\n")
        #expect(result.status == 2, "\(result)")
        #expect(result.error.contains("longer than the 107 that fit in a Unix socket address"))
        #expect(result.error.split(separator: "\n").count == 1)
    }
}
