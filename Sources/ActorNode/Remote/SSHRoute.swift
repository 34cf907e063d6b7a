import Glibc

/// The way to a core on another machine: the user's own `ssh` to `host`, running the app's
/// shell there as a bridge (`ssh -T HOST shell-client bridge`), as git runs `git-upload-pack`
/// and docker `docker system dial-stdio`. No network protocol or authentication of our own:
/// the user's keys, agent, `~/.ssh/config`, ProxyJump and known_hosts all apply.
package struct SSHRoute: Sendable, Equatable {
    /// `[USER@]HOST`, as given to `--ssh`.
    package var host: String
    /// The ssh program and its options: `$CAMA_SSH` (run by `sh`, like `GIT_SSH_COMMAND`),
    /// else nil: `ssh` from `PATH`.
    package var sshCommand: String?
    /// The program to run on the host (`--remote-command`, like rsync's `--rsync-path`),
    /// inserted as it is into the remote command line; its `bridge` command is run.
    package var remoteCommand: String
    /// `--socket`, passed on to the bridge; nil: the host's own default.
    package var socket: String?
    /// `bridge --read-only` on the host.
    package var readOnly = false
    /// Where this side keeps the ssh connection it shares between commands (OpenSSH's
    /// `ControlPath`); nil: none.
    package var controlDirectory: String?

    /// Where shared ssh connections go, for every app: `$XDG_RUNTIME_DIR/cama-ssh`, else
    /// `/tmp/cama-ssh-$UID`, made private to this user; nil if it cannot be (no sharing then).
    package static func preparedControlDirectory() -> String? {
        let runtime = ProcessEnvironment.value("XDG_RUNTIME_DIR").flatMap { $0.isEmpty ? nil : $0 }
        let directory = runtime.map { PathName.join($0, "cama-ssh") } ?? "/tmp/cama-ssh-\(getuid())"
        do {
            try Directories.preparePrivate(directory, role: "the ssh connection directory", forbidden: 0o077, exposure: "is open to other users", alternative: "")
        } catch {
            return nil
        }
        return directory
    }

    /// The environment variable that replaces `ssh`.
    package static let commandVariable = "CAMA_SSH"
    /// How long a shared ssh connection stays up after its last command.
    package static let persistence = "60"

    /// - Parameters:
    ///   - host: `[USER@]HOST`; it may not start with `-` (it would be read as an option).
    ///   - sshCommand: `$CAMA_SSH`, if set.
    ///   - remoteCommand: the shell's program on the host.
    ///   - socket: `--socket`, for the host.
    ///   - controlDirectory: a private directory for the shared connection's socket.
    package init(host: String, sshCommand: String?, remoteCommand: String, socket: String?, controlDirectory: String?) {
        self.host = host
        self.sshCommand = sshCommand.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        self.remoteCommand = remoteCommand
        self.socket = socket
        self.controlDirectory = controlDirectory
    }

    /// Why `host` cannot be used, or nil.
    package static func problem(host: String) -> String? {
        if host.isEmpty { return "--ssh needs a host ([USER@]HOST)" }
        if host.hasPrefix("-") { return "--ssh takes a host, not '\(PeerText.escaped(host))' (a host cannot start with '-')" }
        if host.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } ?? false }) {
            return "--ssh takes one host name, not '\(PeerText.escaped(host))'"
        }
        return nil
    }

    /// The command line the host's shell runs: the bridge, with the socket quoted.
    package var remoteCommandLine: String {
        var words = [remoteCommand, "bridge"]
        if readOnly { words.append("--read-only") }
        if let socket { words += ["--socket", Self.quoted(socket)] }
        return words.joined(separator: " ")
    }

    /// The ssh connection shared between commands (OpenSSH multiplexing), named after the
    /// ssh command and the host so that two differently configured routes never share one.
    package var controlPath: String? {
        controlDirectory.map { PathName.join($0, "ssh-" + Self.fingerprint([sshCommand ?? "ssh", host])) }
    }

    /// The program and arguments that run ssh.
    /// - Parameters:
    ///   - sshOptions: options before the host (sharing the connection, `BatchMode`).
    ///   - remote: the remote command line; nil: none (for `ssh -G`).
    /// - Returns: the executable and its arguments, or nil when there is no ssh on `PATH`.
    package func invocation(sshOptions: [String], remote: String?) -> (executable: String, arguments: [String])? {
        var tail = sshOptions
        if remote != nil { tail.append("-T") }
        // "--" first: whatever the host is, it is not read as an option.
        tail += ["--", host]
        if let remote { tail.append(remote) }
        if let sshCommand {
            return ("/bin/sh", ["-c", sshCommand + " \"$@\"", Self.commandVariable] + tail)
        }
        guard let ssh = ExecutablePath.search("ssh") else { return nil }
        return (ssh, tail)
    }

    /// The options CAMA adds to ssh, each unless this user's own setup already decides it
    /// (`$CAMA_SSH` naming the option, or ssh's configuration for the host, `ssh -G`):
    /// - one ssh connection shared between commands (`ControlMaster=auto`, a `ControlPath` in
    ///   the app's private runtime directory, `ControlPersist` a minute), so that a run of
    ///   `send`s pays for one handshake;
    /// - a connection that died without a word (a network gone, a laptop that slept) noticed
    ///   within half a minute (`ServerAliveInterval=10`, `ServerAliveCountMax=3`), so that the
    ///   client reconnects.
    ///
    /// When the shared connection is up, it was decided before and ssh is not asked again
    /// (the keep-alive options only matter to the connection that is made).
    package func defaultOptions() -> [String] {
        if let controlPath {
            var info = stat()
            if stat(controlPath, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK {
                return options(configuration: nil, sharedConnectionIsUp: true)
            }
        }
        return options(configuration: effectiveConfiguration(), sharedConnectionIsUp: false)
    }

    /// ``defaultOptions()``'s decision, given what it found.
    /// - Parameters:
    ///   - configuration: what `ssh -G HOST` printed; nil if it failed (then nothing is added:
    ///     an ssh that cannot say its configuration may not take these options either).
    ///   - sharedConnectionIsUp: the shared connection's socket is there.
    package func options(configuration: String?, sharedConnectionIsUp: Bool) -> [String] {
        let mentioned = sshCommand?.lowercased() ?? ""
        var sharing: [String] = []
        if let controlPath, !mentioned.contains("control"), !(sshCommand ?? "").contains("-S") {
            sharing = ["-o", "ControlMaster=auto", "-o", "ControlPath=\(controlPath)", "-o", "ControlPersist=\(Self.persistence)"]
            if sharedConnectionIsUp { return sharing }
        }
        guard let configuration = configuration?.lowercased().split(separator: "\n") else { return [] }
        let setting = { (name: String) in configuration.first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) } }
        if let master = setting("controlmaster"), master != "false" { sharing = [] }
        if let path = setting("controlpath"), path != "none" { sharing = [] }
        var keepAlive: [String] = []
        if !mentioned.contains("serveralive"), setting("serveraliveinterval") ?? "0" == "0" {
            keepAlive = ["-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3"]
        }
        return sharing + keepAlive
    }

    /// What keeps ssh from asking for a password or passphrase: nothing for the first
    /// connection of a command run on a terminal (it asks before any full screen starts),
    /// `BatchMode=yes` for every other (a reconnection never prompts in the middle of a screen).
    /// - Parameters:
    ///   - first: the command's first connection.
    ///   - interactive: the command runs on a terminal.
    package static func promptOptions(first: Bool, interactive: Bool) -> [String] {
        first && interactive ? [] : ["-o", "BatchMode=yes"]
    }

    /// Why ssh, running `program` on the host, ended before doing its work: ssh's own failure
    /// (exit 255: its words, and what to check), the program missing there (127) or not
    /// runnable (126), or the program's own failure (its words, with the host).
    /// - Parameters:
    ///   - termination: how ssh ended; nil if it had not ended yet.
    ///   - program: what ran on the host, as the user named it.
    ///   - said: the last line ssh and the program wrote on stderr, escaped.
    ///   - couldPrompt: whether ssh could ask for a password or passphrase (not in BatchMode).
    /// - Returns: one line, for `LinkError.remote` or a command's failure.
    package func failure(_ termination: ChildProcess.Termination?, program: String, said words: String?, couldPrompt: Bool = true) -> String {
        let host = PeerText.escaped(host)
        let program = PeerText.escaped(program)
        switch termination {
        case .exited(255)? where !couldPrompt && (words ?? "").contains("Permission denied"):
            return "cannot reach \(host) through ssh: \(words ?? "permission denied") (nothing can ask for a password or passphrase here: if the key needs one, load it into ssh-agent with ssh-add; else check that 'ssh \(host) true' works)"
        case .exited(255)?:
            return "cannot reach \(host) through ssh: \(words ?? "ssh failed") (check that 'ssh \(host) true' works without a prompt: the host name, your keys, ~/.ssh/config)"
        case .exited(127)? where sshCommand != nil && (words ?? "").hasPrefix("\(Self.commandVariable): "):
            // sh could not run $CAMA_SSH here (it names its errors after $0, CAMA_SSH).
            return "cannot run $\(Self.commandVariable) (\(words ?? "not found")); set it to the ssh command to use, or unset it to use ssh"
        case .exited(127)?:
            return "\(program) is not on \(host)'s PATH for non-interactive ssh; install it there or pass --remote-command\(words.map { " (\($0))" } ?? "")"
        case .exited(126)?:
            return "\(program) on \(host) cannot be run\(words.map { ": \($0)" } ?? ""); pass --remote-command with the path of the app's shell there"
        case let .exited(status)?:
            return "\(host): \(words ?? "\(program) ended with status \(status)")"
        case let .signaled(signal)?:
            return "ssh to \(host) was killed by \(Signals.name(signal))\(words.map { " (\($0))" } ?? "")"
        case nil:
            return "ssh to \(host) closed its output before \(program) started\(words.map { ": \($0)" } ?? "")"
        }
    }

    /// The last line of `text` that is not blank, cut short and escaped: what a program said
    /// last on stderr.
    package static func lastLine(of text: [UInt8]) -> String? {
        let lines = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        return lines.last.map { PeerText.escaped(String($0.prefix(300))) }
    }

    /// Runs `command` on the host (`ssh HOST COMMAND`, with ``defaultOptions()``), on the
    /// calling thread, which may block.
    /// - Parameters:
    ///   - command: the remote command line.
    ///   - timeout: how long it may take.
    ///   - interactive: whether ssh may ask for a password or passphrase on the terminal.
    /// - Returns: how it ended and what it printed.
    package func run(_ command: String, timeout: Duration, interactive: Bool) -> ProcessOutput.Captured? {
        let options = defaultOptions() + Self.promptOptions(first: true, interactive: interactive)
        guard let (executable, arguments) = invocation(sshOptions: options, remote: command) else { return nil }
        return ProcessOutput.capture(executable, arguments: arguments, timeout: timeout)
    }

    /// `ssh -G HOST`: the configuration ssh would use; nil if that fails.
    private func effectiveConfiguration() -> String? {
        guard let (executable, arguments) = invocation(sshOptions: ["-G"], remote: nil) else { return nil }
        guard let captured = ProcessOutput.capture(executable, arguments: arguments, timeout: .seconds(5)), captured.termination.isSuccess else { return nil }
        return String(decoding: captured.output, as: UTF8.self)
    }

    /// `text` as one word for a POSIX shell.
    package static func quoted(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0" ... "9").contains(scalar) || "/._-+:=@%,".unicodeScalars.contains(scalar))
        }
        if safe, !text.isEmpty { return text }
        return "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// A short stable name for `words` (FNV-1a, 64 bits, in hex).
    private static func fingerprint(_ words: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in words.joined(separator: "\u{0}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
