import ActorNode
import Glibc
import Testing

/// `cama-launch --ssh HOST`: a full-screen shell here, attached to the core on HOST, which is
/// started there (supervised, detached) when none serves, and left running when the shell quits.
@Suite("cama-launch over ssh", .enabled(if: LoopbackSSH.unavailable == nil, "\(LoopbackSSH.unavailable ?? "")"),
       .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct RemoteLaunchTests {
    @Test("no core on HOST: one is started there and the shell attaches; q leaves it running; a second launch attaches to it", .timeLimit(.minutes(2)))
    func launchesThenAttaches() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox)
        defer { ssh.stop() }
        let tmux = try #require(Tmux(sandbox))
        let environment = ssh.environment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        let launch = "env \(environment) \(Binary.camaLaunch.path) --ssh loop --remote-command \(Binary.shellClient.path) --socket \(sandbox.socket) --state-dir \(sandbox.stateDirectory)"
        let firstStatus = sandbox.directory + "/first.status"
        try await tmux.session("one", "\(launch); echo $? > \(firstStatus)")
        try await eventually("the shell shows the remote core's empty list") { try await tmux.screen("one").contains("no items") }
        let launcher = SocketLock.holder(of: sandbox.socket)
        #expect(launcher != nil, "a launcher holds the socket on the remote side")
        defer { if let launcher { kill(launcher, SIGKILL) } }
        try await tmux.keys("one", "a")
        try await tmux.type("one", "over ssh")
        try await tmux.keys("one", "Enter")
        try await eventually("the item shows") { try await tmux.screen("one").contains("1 [ ] over ssh") }
        try await tmux.keys("one", "q")
        await eventually("cama-launch exits") { (try? String(contentsOfFile: firstStatus, encoding: .utf8)) != nil }
        #expect((try? String(contentsOfFile: firstStatus, encoding: .utf8))?.trimmingCharacters() == "0")
        #expect(UnixSocket.isServing(sandbox.socket), "the core on HOST outlives the shell")

        let secondStatus = sandbox.directory + "/second.status"
        try await tmux.session("two", "\(launch); echo $? > \(secondStatus)")
        try await eventually("the second launch attaches to the same core") { try await tmux.screen("two").contains("1 [ ] over ssh") }
        #expect(SocketLock.holder(of: sandbox.socket) == launcher, "no second core was started")
        try await tmux.keys("two", "q")
        await eventually("the second cama-launch exits") { (try? String(contentsOfFile: secondStatus, encoding: .utf8)) != nil }
    }

    @Test("--ssh with a mode that runs on HOST itself is a usage error that says where to run it", .timeLimit(.minutes(1)))
    func usage() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(.camaLaunch, ["--ssh", "loop", "status"])
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("cama-launch: --ssh attaches a shell here to the core on HOST; run --headless, --detach, stop and status on HOST itself"), "\(result)")
    }
}
