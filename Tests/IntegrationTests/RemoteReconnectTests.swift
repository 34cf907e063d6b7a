import ActorNode
import Foundation
import Glibc
import Testing

/// Exactly once across what can break between two machines, through a real sshd on loopback:
/// the remote core killed under concurrent sends, and the ssh connections themselves cut under
/// a watcher and a full-screen shell. Each client dials a new ssh and resends what was not
/// answered with its original (client, seq).
@Suite("Reconnecting over ssh", .enabled(if: LoopbackSSH.unavailable == nil, "\(LoopbackSSH.unavailable ?? "")"))
struct RemoteReconnectTests {
    private func remoteArguments(_ ssh: LoopbackSSH) -> [String] {
        ["--ssh", "loop", "--remote-command", Binary.shellClient.path, "--socket", ssh.sandbox.socket]
    }

    /// The items' texts in the state, in order.
    private func texts(_ sandbox: Sandbox) async throws -> [String] {
        let json = try await sandbox.client("state", "--json").output
        let state = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let items = (state?["todo"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        return items.compactMap { $0["text"] as? String }
    }

    @Test("the remote core SIGKILLed under 8 concurrent sends over ssh (its launcher restarts it): every one exits 0, each item once", .timeLimit(.minutes(2)))
    func coreKilledUnderRemoteSends() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox)
        defer { ssh.stop() }
        // A supervised core, as on a server: its launcher keeps the socket, so a connection
        // made while the core restarts waits for the next one.
        let detach = try await sandbox.run(.camaLaunch, ["--detach", "--socket", sandbox.socket, "--state-dir", sandbox.stateDirectory])
        #expect(detach.status == 0, "\(detach)")
        let first = try #require(await corePid(sandbox.socket))
        // Each send by its own ssh (no shared connection yet), all at once.
        let senders = try (1 ... 8).map { number in
            try sandbox.start(.shellClient, ["send", "add", "remote \(number)", "--timeout", "60"] + remoteArguments(ssh), environment: ssh.environment)
        }
        defer { for sender in senders { sender.process.send(SIGKILL) } }
        await eventually("some of the sends are applied") { ((try? await texts(sandbox).count) ?? 0) >= 2 }
        kill(first, SIGKILL)
        for sender in senders {
            let termination = await sender.process.waitForExit(timeout: .seconds(60))
            #expect(termination == .exited(0), "\(sender.errorOutput)")
        }
        let applied = try await texts(sandbox)
        #expect(applied.sorted() == (1 ... 8).map { "remote \($0)" }.sorted(), "\(applied)")
        #expect(await corePid(sandbox.socket) != first, "the core was restarted")
    }

    @Test("every ssh connection cut under a remote watch and a full-screen attach: both say 'reconnecting to loop', come back, and end with each action once", .enabled(if: Tmux.executable != nil, "tmux is not installed"), .timeLimit(.minutes(2)))
    func connectionCut() async throws {
        let rig = try await TerminalRig()
        let (sandbox, ssh, tmux) = (rig.sandbox, rig.ssh, rig.tmux)

        let watcher = try sandbox.start(.shellClient, ["watch", "--json", "--timeout", "60"] + remoteArguments(ssh), environment: ssh.environment)
        defer { watcher.process.send(SIGKILL) }
        let statusFile = sandbox.directory + "/attach.status"
        try await tmux.session("r", "env \(rig.environment) \(Binary.shellClient.path) attach \(remoteArguments(ssh).joined(separator: " ")) --timeout 60; echo $? > \(statusFile)")
        try await eventually("the remote full screen shows the empty list") { try await tmux.screen("r").contains("no items") }
        try await tmux.keys("r", "a")
        try await tmux.type("r", "typed before")
        try await tmux.keys("r", "Enter")
        try await eventually("the item shows") { try await tmux.screen("r").contains("1 [ ] typed before") }
        await eventually("the watcher printed it") { watcher.output.contains("typed before") }

        try await tmux.startLogging("r")
        #expect(ssh.sessions >= 1)
        // The network goes: every session dies, and no new one is served until it is back.
        ssh.pauseListener(true)
        ssh.killSessions()
        await eventually("the full screen said where it reconnects") { tmux.log("r").contains("reconnecting to loop…") }
        await eventually("the watcher said it too") { watcher.errorOutput.contains("the connection to the core was lost; reconnecting to loop") }
        // While it is down: a key in the full screen (kept, then sent), and a change made on
        // the core's machine.
        try await tmux.keys("r", "a")
        try await tmux.type("r", "typed during")
        try await tmux.keys("r", "Enter")
        #expect(try await sandbox.client("send", "add", "sent locally").status == 0)
        #expect(try await texts(sandbox) == ["typed before", "sent locally"], "nothing typed while the network was gone can have arrived yet")
        ssh.pauseListener(false)

        try await eventually("the full screen shows all three") {
            let screen = try await tmux.screen("r")
            return screen.contains("typed before") && screen.contains("typed during") && screen.contains("sent locally")
        }
        let applied = try await texts(sandbox)
        #expect(applied.sorted() == ["sent locally", "typed before", "typed during"], "\(applied)")
        let state = try await sandbox.client("state", "--json").output
        await eventually("the watcher's last line is the core's state") {
            watcher.output.split(separator: "\n").last.map { $0 + "\n" == state } ?? false
        }

        // Gone again, for longer: while ssh waits for the host, q still quits at once.
        ssh.pauseListener(true)
        defer { ssh.pauseListener(false) }
        let cut = tmux.log("r").count
        ssh.killSessions()
        await eventually("reconnecting again") { tmux.log("r").dropFirst(cut).contains("reconnecting to loop…") }
        // Once its new ssh is waiting for the host (the shell's child), not before.
        let shell = try #require(LoopbackSSH.processes(mentioning: "\(Binary.shellClient.path)\u{0}attach\u{0}--ssh").first)
        await eventually("the full screen dials again") { !LoopbackSSH.children(of: shell).isEmpty }
        try await tmux.keys("r", "q")
        await eventually("q quits while ssh still waits for the host", timeout: .seconds(5)) {
            (try? String(contentsOfFile: statusFile, encoding: .utf8)) != nil
        }
        #expect((try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters() == "0")
    }

    @Test("a key with a passphrase: asked on the terminal before the full screen starts; a reconnection never asks (BatchMode): the screen says it is reconnecting and q quits", .enabled(if: Tmux.executable != nil, "tmux is not installed"), .timeLimit(.minutes(1)))
    func passphrase() async throws {
        let rig = try await TerminalRig()
        let (sandbox, ssh, tmux) = (rig.sandbox, rig.ssh, rig.tmux)
        let statusFile = sandbox.directory + "/attach.status"
        let remote = ["--ssh", "loop-pass", "--remote-command", Binary.shellClient.path, "--socket", sandbox.socket]
        try await tmux.session("p", "env \(rig.environment) \(Binary.shellClient.path) attach \(remote.joined(separator: " ")) --timeout 60; echo $? > \(statusFile)")
        try await eventually("ssh asks for the passphrase") { try await tmux.screen("p").contains("Enter passphrase for key") }
        #expect(try await tmux.display("p", "#{alternate_on}") == "0", "the question comes before the full screen")
        try await tmux.type("p", LoopbackSSH.passphrase)
        try await tmux.keys("p", "Enter")
        try await eventually("the full screen starts") { try await tmux.screen("p").contains("no items") }
        #expect(try await tmux.display("p", "#{alternate_on}") == "1")

        try await tmux.startLogging("p")
        ssh.killSessions()
        await eventually("it says it is reconnecting") { tmux.log("p").contains("reconnecting to loop-pass…") }
        // Its new ssh runs in BatchMode: no question lands on the screen, and it keeps trying.
        let shell = try #require(LoopbackSSH.processes(mentioning: "\(Binary.shellClient.path)\u{0}attach\u{0}--ssh").first)
        await eventually("a reconnection was tried") { !LoopbackSSH.children(of: shell).isEmpty }
        await eventually("and failed, without asking") { LoopbackSSH.children(of: shell).isEmpty }
        #expect(!tmux.log("p").contains("Enter passphrase"), "\(tmux.log("p"))")
        // Why it cannot get back, on the message line.
        try await eventually("it says why, and what to do") {
            let screen = try await tmux.screen("p")
            return screen.contains("cannot reach loop-pass through ssh: ") && screen.contains("Permission denied")
        }
        try await tmux.keys("p", "q")
        await eventually("q quits") { (try? String(contentsOfFile: statusFile, encoding: .utf8)) != nil }
        #expect(try await tmux.display("p", "#{alternate_on}") == "0")
    }
}

/// A sandbox with a loopback sshd, a core and a tmux server, for a full screen over ssh; the
/// ssh processes and the core are ended, by pid, when it goes (the sandbox ends the rest).
private final class TerminalRig {
    let sandbox: Sandbox
    let ssh: LoopbackSSH
    let core: Started
    let tmux: Tmux

    init() async throws {
        sandbox = try Sandbox()
        ssh = try await LoopbackSSH(sandbox)
        core = try await sandbox.startCore()
        guard let tmux = Tmux(sandbox) else { throw SystemError("tmux is not installed", code: ENOENT) }
        self.tmux = tmux
    }

    deinit {
        ssh.stop()
        core.process.send(SIGTERM)
    }

    /// The ssh environment as `NAME='value'` words, for a command line run by tmux.
    var environment: String {
        ssh.environment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
    }
}
