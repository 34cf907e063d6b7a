import Testing
@testable import ActorNode

/// What `--ssh` runs: the ssh command line, the remote command line with its socket quoted
/// for the host's shell, and which hosts are refused before anything runs.
@Suite("The ssh route")
struct SSHRouteTests {
    private func route(ssh: String? = nil, socket: String? = nil, readOnly: Bool = false) -> SSHRoute {
        var route = SSHRoute(host: "me@server", sshCommand: ssh, remoteCommand: "shell-client", socket: socket, controlDirectory: "/run/user/1000/cama-ssh")
        route.readOnly = readOnly
        return route
    }

    @Test("the remote command line: the bridge, the socket quoted as one word for the host's shell")
    func remoteCommandLine() {
        #expect(route().remoteCommandLine == "shell-client bridge")
        #expect(route(socket: "/run/user/1000/cama/core.sock").remoteCommandLine == "shell-client bridge --socket /run/user/1000/cama/core.sock")
        #expect(route(socket: "/tmp/my dir/it's.sock").remoteCommandLine == #"shell-client bridge --socket '/tmp/my dir/it'\''s.sock'"#)
        #expect(route(socket: "$(reboot)").remoteCommandLine == "shell-client bridge --socket '$(reboot)'")
        #expect(route(readOnly: true).remoteCommandLine == "shell-client bridge --read-only")
        #expect(SSHRoute.quoted("") == "''")
    }

    @Test("ssh from PATH with -T and the host after --; $CAMA_SSH run by sh with the arguments after it, as GIT_SSH_COMMAND is")
    func invocation() throws {
        let plain = try #require(route().invocation(sshOptions: ["-o", "BatchMode=yes"], remote: "shell-client bridge"))
        #expect(plain.executable.hasSuffix("/ssh"))
        #expect(plain.arguments == ["-o", "BatchMode=yes", "-T", "--", "me@server", "shell-client bridge"])
        let custom = try #require(route(ssh: "ssh -F /etc/cama/ssh_config -p 2222").invocation(sshOptions: [], remote: "x bridge"))
        #expect(custom.executable == "/bin/sh")
        #expect(custom.arguments == ["-c", #"ssh -F /etc/cama/ssh_config -p 2222 "$@""#, "CAMA_SSH", "-T", "--", "me@server", "x bridge"])
        let asking = try #require(route().invocation(sshOptions: ["-G"], remote: nil))
        #expect(asking.arguments == ["-G", "--", "me@server"])
    }

    @Test("a blank $CAMA_SSH is no $CAMA_SSH")
    func blankCommand() {
        #expect(route(ssh: "  ").sshCommand == nil)
    }

    @Test("a host that ssh would read as an option, or more than one word, is refused", arguments: [
        ("-oProxyCommand=touch /tmp/pwned", true), ("", true), ("two words", true), ("line\nbreak", true),
        ("server", false), ("me@server.example.com", false), ("[::1]", false),
    ])
    func hosts(host: String, refused: Bool) {
        #expect((SSHRoute.problem(host: host) != nil) == refused)
    }

    @Test("the shared connection's socket is named after the ssh command and the host: two routes share one only when both are the same")
    func controlPath() throws {
        let one = try #require(route().controlPath)
        #expect(one.hasPrefix("/run/user/1000/cama-ssh/ssh-") && one.count == "/run/user/1000/cama-ssh/ssh-".count + 16)
        #expect(route().controlPath == one)
        #expect(route(ssh: "ssh -p 2222").controlPath != one)
        var other = route()
        other.host = "me@other"
        #expect(other.controlPath != one)
    }

    @Test("what ssh said and how it ended become one line naming the host and what to check", arguments: [
        (ChildProcess.Termination.exited(255), "ssh: connect to host server port 22: Connection refused",
         "cannot reach me@server through ssh: ssh: connect to host server port 22: Connection refused (check that 'ssh me@server true' works without a prompt: the host name, your keys, ~/.ssh/config)"),
        (.exited(127), "bash: line 1: shell-client: command not found",
         "shell-client is not on me@server's PATH for non-interactive ssh; install it there or pass --remote-command (bash: line 1: shell-client: command not found)"),
        (.exited(3), "shell-client: no core is serving /run/cama/core.sock (no such socket); start a core with 'cama-launch --detach'",
         "me@server: shell-client: no core is serving /run/cama/core.sock (no such socket); start a core with 'cama-launch --detach'"),
    ])
    func failures(termination: ChildProcess.Termination, said: String, expected: String) {
        #expect(route().failure(termination, program: "shell-client", said: said) == expected)
    }

    @Test("a connection that could not prompt and was refused says that a key with a passphrase may be why")
    func batchRefused() {
        let line = route().failure(.exited(255), program: "shell-client", said: "root@server: Permission denied (publickey).", couldPrompt: false)
        #expect(line == "cannot reach me@server through ssh: root@server: Permission denied (publickey). (nothing can ask for a password or passphrase here: if the key needs one, load it into ssh-agent with ssh-add; else check that 'ssh me@server true' works)")
    }

    @Test("a $CAMA_SSH that cannot run here is not taken for a remote command missing there")
    func localCommandMissing() {
        let line = route(ssh: "nonexistent-ssh").failure(.exited(127), program: "shell-client", said: "CAMA_SSH: 1: nonexistent-ssh: not found")
        #expect(line == "cannot run $CAMA_SSH (CAMA_SSH: 1: nonexistent-ssh: not found); set it to the ssh command to use, or unset it to use ssh")
        let remote = route(ssh: "ssh -p 2222").failure(.exited(127), program: "shell-client", said: "bash: line 1: shell-client: command not found")
        #expect(remote.hasPrefix("shell-client is not on me@server's PATH"))
    }

    @Test("the last line written on stderr, blank lines aside, escaped")
    func lastLine() {
        #expect(SSHRoute.lastLine(of: Array("Warning: Permanently added 'x'\r\nroot@x: Permission denied (publickey).\n\n".utf8)) == "root@x: Permission denied (publickey).")
        #expect(SSHRoute.lastLine(of: Array("\u{1b}[31mred\n".utf8)) == PeerText.escaped("\u{1b}[31mred"))
        #expect(SSHRoute.lastLine(of: []) == nil)
    }
}

/// Which options CAMA adds to ssh, and when the user's own setup decides instead.
@Suite("The ssh route's options")
struct SSHRouteOptionsTests {
    private func route(ssh: String? = nil) -> SSHRoute {
        SSHRoute(host: "server", sshCommand: ssh, remoteCommand: "shell-client", socket: nil, controlDirectory: "/run/user/1000/cama-ssh")
    }

    /// `ssh -G` output, as OpenSSH 9 prints it for a host with nothing configured.
    private let plain = "user me\nhostname server\nport 22\ncontrolmaster false\ncontrolpersist no\nserveraliveinterval 0\nserveralivecountmax 3\n"

    @Test("nothing configured: a shared connection and keep-alives")
    func defaults() throws {
        let options = route().options(configuration: plain, sharedConnectionIsUp: false)
        let path = try #require(route().controlPath)
        #expect(options == ["-o", "ControlMaster=auto", "-o", "ControlPath=\(path)", "-o", "ControlPersist=60",
                            "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3"])
    }

    @Test("a shared connection already up: it was decided then; ssh is not asked")
    func upAlready() {
        #expect(route().options(configuration: nil, sharedConnectionIsUp: true).count == 6)
    }

    @Test("the user's config or $CAMA_SSH decides: no sharing, no keep-alives of ours")
    func userDecides() {
        let configured = plain.replacing("controlmaster false", with: "controlmaster auto\ncontrolpath ~/.ssh/cm-%C")
            .replacing("serveraliveinterval 0", with: "serveraliveinterval 30")
        #expect(route().options(configuration: configured, sharedConnectionIsUp: false).isEmpty)
        #expect(route(ssh: "ssh -o ControlMaster=no").options(configuration: plain, sharedConnectionIsUp: false) == ["-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3"])
        #expect(route(ssh: "ssh -o ServerAliveInterval=5").options(configuration: plain, sharedConnectionIsUp: false).count == 6)
        #expect(route().options(configuration: nil, sharedConnectionIsUp: false).isEmpty, "an ssh that cannot say its configuration gets nothing added")
    }

    @Test("only a command's first connection on a terminal may prompt; every other runs in BatchMode")
    func prompts() {
        #expect(SSHRoute.promptOptions(first: true, interactive: true).isEmpty)
        #expect(SSHRoute.promptOptions(first: false, interactive: true) == ["-o", "BatchMode=yes"])
        #expect(SSHRoute.promptOptions(first: true, interactive: false) == ["-o", "BatchMode=yes"])
    }
}
