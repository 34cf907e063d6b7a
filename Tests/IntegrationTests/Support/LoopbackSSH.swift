import ActorNode
import Foundation
import Glibc
import Testing

/// A real OpenSSH server on 127.0.0.1 for one test, with throwaway host and user keys in the
/// test's sandbox, and an ssh configuration naming it `loop` (and `loop-ro`, whose key may
/// only run a read-only bridge). Clients reach it with `CAMA_SSH="ssh -F <sandbox>/ssh_config"`
/// (``environment``), and `loop-pass`, whose key has the passphrase ``passphrase`` and which
/// may prompt), their shared ssh connections live in the sandbox (`XDG_RUNTIME_DIR`),
/// and ``stop()`` kills every process of the sandbox's ssh by pid.
final class LoopbackSSH {
    static let sshd = "/usr/sbin/sshd"
    /// The passphrase of `loop-pass`'s key.
    static let passphrase = "open sesame"

    /// Why these tests cannot run here, or nil.
    static let unavailable: String? = {
        for tool in [sshd, "/usr/bin/ssh", "/usr/bin/ssh-keygen"] where access(tool, X_OK) != 0 {
            return "\(tool) is not installed (apt-get install openssh-server openssh-client)"
        }
        // sshd run by root wants its privilege separation directory.
        if getuid() == 0, access("/run/sshd", F_OK) != 0, mkdir("/run/sshd", 0o755) != 0 {
            return "sshd needs /run/sshd, which cannot be made"
        }
        return nil
    }()

    let sandbox: Sandbox
    let port: Int
    private(set) var server: ChildProcess?
    /// Where shared ssh connections (ControlPath) go: the clients' XDG_RUNTIME_DIR.
    var runtimeDirectory: String { sandbox.directory + "/run" }
    private var configuration: String { sandbox.directory + "/ssh_config" }

    /// What a client needs in its environment to use this server.
    var environment: [String: String] {
        ["CAMA_SSH": "ssh -F \(configuration)", "XDG_RUNTIME_DIR": runtimeDirectory]
    }

    /// Starts sshd and waits until it accepts connections.
    /// - Parameter readOnlyCommand: the command the `loop-ro` key is forced to run
    ///   (`authorized_keys` `command="..."`).
    init(_ sandbox: Sandbox, readOnlyCommand: String? = nil) async throws {
        self.sandbox = sandbox
        let directory = sandbox.directory
        try Directories.create(directory + "/run")
        for key in ["host_key", "user_key", "ro_key", "pass_key"] {
            let made = try await sandbox.runTool("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", key == "pass_key" ? Self.passphrase : "", "-C", key, "-f", "\(directory)/\(key)"])
            guard made == 0 else { throw SystemError("ssh-keygen for \(key) exited \(made)", code: EIO) }
        }
        var authorized = try String(contentsOfFile: "\(directory)/user_key.pub", encoding: .utf8)
            + String(contentsOfFile: "\(directory)/pass_key.pub", encoding: .utf8)
        if let readOnlyCommand {
            authorized += "command=\"\(readOnlyCommand)\",no-pty,no-port-forwarding " + (try String(contentsOfFile: "\(directory)/ro_key.pub", encoding: .utf8))
        }
        try Data(authorized.utf8).write(to: URL(fileURLWithPath: "\(directory)/authorized_keys"))
        chmod("\(directory)/authorized_keys", 0o600)
        // A port of its own: tests run side by side.
        port = 20_000 + Int(getpid() % 20_000) + Int.random(in: 0 ..< 20_000) % 5_000
        let hostKey = try String(contentsOfFile: "\(directory)/host_key.pub", encoding: .utf8)
        try Data("[127.0.0.1]:\(port) \(hostKey)".utf8).write(to: URL(fileURLWithPath: "\(directory)/known_hosts"))
        try Data("""
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory)/host_key
        AuthorizedKeysFile \(directory)/authorized_keys
        PidFile none
        StrictModes no
        UsePAM no
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PermitRootLogin yes
        LogLevel ERROR

        """.utf8).write(to: URL(fileURLWithPath: "\(directory)/sshd_config"))
        let port = self.port
        let client = { (name: String, key: String, batch: Bool) in """
        Host \(name)
          HostName 127.0.0.1
          Port \(port)
          User \(String(cString: getpwuid(getuid())!.pointee.pw_name))
          IdentityFile \(directory)/\(key)
          IdentitiesOnly yes
          IdentityAgent none
          UserKnownHostsFile \(directory)/known_hosts
          StrictHostKeyChecking yes
          BatchMode \(batch ? "yes" : "no")
          LogLevel ERROR

        """ }
        let hosts = client("loop", "user_key", true) + client("loop-ro", "ro_key", true) + client("loop-pass", "pass_key", false)
        try Data(hosts.utf8).write(to: URL(fileURLWithPath: configuration))
        let started = try sandbox.start(executable: Self.sshd, name: "sshd", ["-D", "-e", "-f", "\(directory)/sshd_config"])
        server = started.process
        await eventually("sshd listens on 127.0.0.1:\(port)") { Self.accepts(port) || started.process.termination != nil }
        if let termination = started.process.termination {
            throw SystemError("sshd \(termination): \(started.errorOutput)", code: EIO)
        }
    }

    deinit { stop() }

    /// Kills, by pid, sshd and its sessions and every ssh of this sandbox (clients and the
    /// shared connections they left behind), found by the sandbox's path in their command lines.
    func stop() {
        for pid in Self.processes(mentioning: sandbox.directory) { kill(pid, SIGKILL) }
        if let server { killSessions(); server.send(SIGKILL) }
    }

    /// Kills the server's sessions (each connection's sshd, and everything under it), as a
    /// dropped network would end them: the clients' ssh connections die.
    @discardableResult
    func killSessions() -> [pid_t] {
        guard let server else { return [] }
        var victims = Self.children(of: server.pid)
        var index = 0
        while index < victims.count {
            victims += Self.children(of: victims[index])
            index += 1
        }
        for pid in victims { kill(pid, SIGKILL) }
        return victims
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) the server's listener: while it is stopped, new
    /// connections wait in its backlog, as they would for a host that is unreachable for a while.
    func pauseListener(_ paused: Bool) {
        server?.send(paused ? SIGSTOP : SIGCONT)
    }

    /// How many sessions (connections) the server has now.
    var sessions: Int { server.map { Self.children(of: $0.pid).count } ?? 0 }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// The pids whose command line mentions `text`, this process aside.
    static func processes(mentioning text: String) -> [pid_t] {
        allPids().filter { pid in
            guard pid != getpid(), let line = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) else { return false }
            return line.contains(text)
        }
    }

    /// The direct children of `parent`.
    static func children(of parent: pid_t) -> [pid_t] {
        allPids().filter { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = status.lastIndex(of: ")") else { return false }
            let fields = status[status.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[1]) == parent
        }
    }

    private static func allPids() -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid_t($0) }
    }
}

extension Sandbox {

    /// Runs a tool to completion and returns its exit status (-1 if it did not exit).
    func runTool(_ executable: String, _ arguments: [String]) async throws -> Int32 {
        let tool = try start(executable: executable, name: PathName.fileName(of: executable), arguments)
        guard case let .exited(code)? = await tool.process.waitForExit(timeout: .seconds(30)) else { return -1 }
        return code
    }
}
