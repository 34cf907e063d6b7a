import ActorNode
import Glibc

/// A private tmux server for one test: sessions that run our shells on real terminals, keys
/// typed with `send-keys`, screens read with `capture-pane`. Killed when the test ends.
final class Tmux {
    let socket: String
    private let sandbox: Sandbox
    /// The tmux server's pid, to kill it by pid when the test ends (its socket may be gone).
    private var serverPid: pid_t = 0

    static var executable: String? {
        ["/usr/bin/tmux", "/bin/tmux", "/usr/local/bin/tmux"].first { access($0, X_OK) == 0 }
    }

    init?(_ sandbox: Sandbox) {
        guard Self.executable != nil else { return nil }
        self.sandbox = sandbox
        socket = sandbox.directory + "/tmux.sock"
    }

    deinit {
        if serverPid > 0 { kill(serverPid, SIGKILL) }
    }

    @discardableResult
    func run(_ arguments: String...) async throws -> String {
        let process = try ChildProcess.spawn(Self.executable!, arguments: ["-S", socket] + arguments,
                                             standardOutput: try outputFile(), standardError: open("/dev/null", O_WRONLY | O_CLOEXEC))
        _ = await process.waitForExit(timeout: .seconds(10))
        return (try? String(contentsOfFile: sandbox.directory + "/tmux.out", encoding: .utf8)) ?? ""
    }

    private func outputFile() throws -> Int32 {
        open(sandbox.directory + "/tmux.out", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    }

    /// A detached session running `command` on a `columns`x`rows` terminal; its pane stays
    /// after the command exits, so its last state can be read.
    func session(_ name: String, _ command: String, columns: Int = 80, rows: Int = 24) async throws {
        try await run("new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", command)
        try await run("set-option", "-t", name, "remain-on-exit", "on")
        if serverPid == 0 { serverPid = pid_t(try await display(name, "#{pid}")) ?? 0 }
    }

    /// Everything the pane's program writes from now on, appended to a file, so that a state
    /// shown only briefly (a message replaced a moment later) can still be checked.
    func startLogging(_ target: String) async throws {
        try await run("pipe-pane", "-t", target, "cat >> \(logFile(target))")
    }

    /// What the pane's program has written since `startLogging`, escape sequences and all.
    func log(_ target: String) -> String {
        (try? String(contentsOfFile: logFile(target), encoding: .utf8)) ?? ""
    }

    private func logFile(_ target: String) -> String {
        "\(sandbox.directory)/\(target).pane.log"
    }

    func keys(_ target: String, _ keys: String...) async throws {
        for key in keys { try await run("send-keys", "-t", target, key) }
    }

    func type(_ target: String, _ text: String) async throws {
        try await run("send-keys", "-t", target, "-l", text)
    }

    func screen(_ target: String) async throws -> String {
        try await run("capture-pane", "-p", "-t", target)
    }

    func display(_ target: String, _ format: String) async throws -> String {
        try await run("display-message", "-p", "-t", target, format).trimmingCharacters()
    }
}

extension String {
    func trimmingCharacters() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
