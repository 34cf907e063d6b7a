import ActorNode
import Foundation
import Glibc
import Testing

/// `--ssh HOST` for the one-shot commands, through a real sshd on loopback: send, state and
/// watch; one shared ssh connection for a run of commands; every way the route can fail, each
/// one line with its exit code; and a key that may only run a read-only bridge, through which
/// looking back (history, state --at, diff) works too.
@Suite("Commands over ssh", .enabled(if: LoopbackSSH.unavailable == nil, "\(LoopbackSSH.unavailable ?? "")"))
struct RemoteCommandsTests {
    /// `shell-client ARGS --ssh HOST` with this sandbox's remote command and socket.
    private func remote(_ ssh: LoopbackSSH, _ arguments: [String], host: String = "loop", remoteCommand: String? = nil, input: String? = nil) async throws -> Finished {
        try await ssh.sandbox.run(
            .shellClient,
            arguments + ["--ssh", host, "--remote-command", remoteCommand ?? Binary.shellClient.path, "--socket", ssh.sandbox.socket],
            input: input, environment: ssh.environment)
    }

    @Test("send, state and watch through ssh; the commands after the first share its ssh connection", .timeLimit(.minutes(1)))
    func commands() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox)
        defer { ssh.stop() }
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }

        let sent = try await remote(ssh, ["send", "add", "from afar"])
        #expect(sent.status == 0, "\(sent)")
        let state = try await remote(ssh, ["state"])
        #expect(state.status == 0 && state.output.hasPrefix("revision 1: 1 item") && state.output.contains("1 [ ] from afar"), "\(state)")
        let json = try await remote(ssh, ["state", "--json"])
        let local = try await sandbox.client("state", "--json")
        #expect(json.output == local.output)

        // The watcher sees the state, then a change made by a local client.
        let watcher = try sandbox.start(.shellClient, ["watch", "--json", "--count", "2", "--ssh", "loop", "--remote-command", Binary.shellClient.path, "--socket", sandbox.socket], environment: ssh.environment)
        defer { watcher.process.send(SIGKILL) }
        await eventually("the remote watcher printed the state") { watcher.output.contains(#""revision":1"#) }
        #expect(try await sandbox.client("send", "toggle", "1").status == 0)
        #expect(await watcher.process.waitForExit(timeout: .seconds(20)) == .exited(0))
        let lines = watcher.output.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].contains(#""done":true"#) && lines[1].contains(#""revision":2"#), "\(watcher.output)")

        // `send -` and the line-mode attach (their input from a file: no terminal) take the
        // same route.
        let streamed = try await remote(ssh, ["send", "-"], input: "add second\ncounter increment\n")
        #expect(streamed.status == 0, "\(streamed)")
        let attached = try await remote(ssh, ["attach"], input: "add third\nquit\n")
        #expect(attached.status == 0 && attached.output.hasPrefix("attached to loop:\(sandbox.socket) (core "), "\(attached)")
        let final = try await sandbox.client("state").output
        #expect(final.hasPrefix("revision 5: 3 items, 1 done") && final.contains("3 [ ] third") && final.contains("counter: 1"), "\(final)")

        // A watcher that dies leaves nothing behind on the server: its bridge ends.
        let doomed = try sandbox.start(.shellClient, ["watch"] + ["--ssh", "loop", "--remote-command", Binary.shellClient.path, "--socket", sandbox.socket], environment: ssh.environment)
        await eventually("the doomed watcher printed the state") { doomed.output.contains("revision 5") }
        // The bridge itself: its arguments apart (NUL-separated), unlike the ssh and shell command lines that carry them.
        let bridges = { LoopbackSSH.processes(mentioning: "bridge\u{0}--socket\u{0}\(sandbox.socket)").count }
        #expect(bridges() == 1)
        doomed.process.send(SIGKILL)
        await eventually("its bridge on the server ends") { bridges() == 0 }

        // One ssh connection served them all: the server has one session, kept by the shared
        // connection, whose socket is in the runtime directory.
        #expect(ssh.sessions == 1, "sessions: \(ssh.sessions)")
        let shared = try FileManager.default.contentsOfDirectory(atPath: ssh.runtimeDirectory + "/cama-ssh").filter { $0.hasPrefix("ssh-") }
        #expect(shared.count == 1, "\(shared)")
    }

    @Test("each way the route fails is one line with its exit code: no sshd, no such command there, no core there, a chatty startup file, another protocol version", .timeLimit(.minutes(1)))
    func failures() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox)
        defer { ssh.stop() }

        let noCore = try await remote(ssh, ["state"])
        #expect(noCore.status == 3)
        #expect(noCore.error == "shell-client: loop: shell-client: no core is serving \(sandbox.socket) (no such socket); start a core with 'cama-launch --detach' (or 'swift run cama-launch')\n", "\(noCore)")

        let notThere = try await remote(ssh, ["state"], remoteCommand: "cama-no-such-program")
        #expect(notThere.status == 3)
        #expect(notThere.error.hasPrefix("shell-client: cama-no-such-program is not on loop's PATH for non-interactive ssh; install it there or pass --remote-command"), "\(notThere)")
        #expect(notThere.error.split(separator: "\n").count == 1)

        let chatty = try await remote(ssh, ["state"], remoteCommand: "echo Welcome to the server; \(Binary.shellClient.path)")
        #expect(chatty.status == 4)
        #expect(chatty.error.hasPrefix(#"shell-client: loop printed "Welcome to the server" before the bridge started: a startup file there"#), "\(chatty)")

        let newer = try await remote(ssh, ["state"], remoteCommand: "printf 'cama-bridge 99\\n'; sleep 1; true")
        #expect(newer.status == 4)
        #expect(newer.error.contains("CAMA on loop speaks protocol 99 and this shell-client on \(LocalHost.name) speaks 1; install the same version of CAMA on both machines"), "\(newer)")

        // The core there speaks another version (a fake bridge: greets, then answers the hello
        // as a core of protocol 2 does).
        let fake = sandbox.directory + "/fake-bridge.py"
        try Data("""
        import sys, json, struct
        out = sys.stdout.buffer
        out.write(b"cama-bridge 1\\n"); out.flush()
        n = struct.unpack(">I", sys.stdin.buffer.read(4))[0]; sys.stdin.buffer.read(n)
        body = json.dumps({"error": {"code": "version_mismatch", "message": "this core speaks protocol 2 and the client speaks 1", "protocol": 2}}).encode()
        out.write(struct.pack(">I", len(body)) + body); out.flush()

        """.utf8).write(to: URL(fileURLWithPath: fake))
        if access("/usr/bin/python3", X_OK) == 0 {
            let older = try await remote(ssh, ["state"], remoteCommand: "/usr/bin/python3 \(fake) #")
            #expect(older.status == 4)
            #expect(older.error == "shell-client: CAMA on loop speaks protocol 2 and this shell-client on \(LocalHost.name) speaks 1; install the same version of CAMA on both machines\n", "\(older)")
        }

        // Nobody listens: ssh's own words, and what to check.
        var closed = ssh.environment
        closed["CAMA_SSH"] = "ssh -F \(sandbox.directory)/ssh_config -p 1"
        let refused = try await sandbox.run(.shellClient, ["state", "--ssh", "loop", "--remote-command", Binary.shellClient.path], environment: closed)
        #expect(refused.status == 3)
        #expect(refused.error.hasPrefix("shell-client: cannot reach loop through ssh: ssh: connect to host 127.0.0.1 port 1: Connection refused (check that 'ssh loop true' works"), "\(refused)")

        // A key the server does not know (loop-ro's, not authorized here).
        let stranger = try await remote(ssh, ["state"], host: "loop-ro")
        #expect(stranger.status == 3)
        #expect(stranger.error.hasPrefix("shell-client: cannot reach loop-ro through ssh: ") && stranger.error.contains("Permission denied (publickey)"), "\(stranger)")
        #expect(noCore.output.isEmpty && notThere.output.isEmpty && chatty.output.isEmpty && refused.output.isEmpty)
    }

    @Test("a key that may only run 'bridge --read-only': state, watch, history, state --at and diff work, an action is refused (exit 1) and never applied", .timeLimit(.minutes(1)))
    func readOnlyKey() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox, readOnlyCommand: "\(Binary.shellClient.path) bridge --read-only --socket \(sandbox.socket)")
        defer { ssh.stop() }
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }
        #expect(try await sandbox.client("send", "add", "visible").status == 0)

        let state = try await remote(ssh, ["state"], host: "loop-ro")
        #expect(state.status == 0 && state.output.contains("1 [ ] visible"), "\(state)")
        let watched = try await remote(ssh, ["watch", "--json", "--count", "1"], host: "loop-ro")
        #expect(watched.status == 0 && watched.output.contains(#""text":"visible""#), "\(watched)")
        // Looking back reads too: history, state --at and diff go through.
        let history = try await remote(ssh, ["history"], host: "loop-ro")
        #expect(history.status == 0 && history.output.hasPrefix("1 ") && history.output.hasSuffix(#" {"add":{"text":"visible"}}"# + "\n"), "\(history)")
        let before = try await remote(ssh, ["state", "--at", "0"], host: "loop-ro")
        #expect(before.status == 0 && before.output.hasPrefix("revision 0: no items"), "\(before)")
        let diff = try await remote(ssh, ["diff", "0", "1"], host: "loop-ro")
        #expect(diff.status == 0 && diff.output.hasPrefix("add /todo/items/0: "), "\(diff)")
        let refused = try await remote(ssh, ["send", "add", "not allowed"], host: "loop-ro")
        #expect(refused.status == 1)
        #expect(refused.error.hasPrefix("shell-client: rejected: this connection is read-only (bridge --read-only)") && refused.error.hasSuffix("(read_only)\n"), "\(refused)")
        #expect(try await sandbox.client("state").output.hasPrefix("revision 1: 1 item"))
    }
}

/// Any app's shell takes --ssh: the framework's, not the to-do app's.
@Suite("Another app over ssh", .enabled(if: LoopbackSSH.unavailable == nil, "\(LoopbackSSH.unavailable ?? "")"))
struct RemoteChatTests {
    @Test("chat-shell --ssh: a post sent from afar shows in the room's state; its default remote command is chat-shell", .timeLimit(.minutes(1)))
    func chatOverSSH() async throws {
        let sandbox = try Sandbox()
        let ssh = try await LoopbackSSH(sandbox)
        defer { ssh.stop() }
        let core = try sandbox.start(.chatCore, ["--socket", sandbox.socket])
        defer { core.process.send(SIGTERM) }
        await eventually("chat-core serves") { UnixSocket.isServing(sandbox.socket) }
        let remote = ["--ssh", "loop", "--remote-command", Binary.chatShell.path, "--socket", sandbox.socket]
        let posted = try await sandbox.run(.chatShell, ["send", "post", "ana", "hello from afar"] + remote, environment: ssh.environment)
        #expect(posted.status == 0, "\(posted)")
        let state = try await sandbox.run(.chatShell, ["state"] + remote, environment: ssh.environment)
        #expect(state.output.contains("ana: hello from afar"), "\(state)")
        // Without --remote-command, the host is asked for the app's own shell by name.
        let byName = try await sandbox.run(.chatShell, ["state", "--ssh", "loop", "--socket", sandbox.socket], environment: ssh.environment)
        #expect(byName.status == 3 && byName.error.hasPrefix("chat-shell: chat-shell is not on loop's PATH"), "\(byName)")
    }
}
