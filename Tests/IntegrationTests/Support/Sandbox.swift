import ActorNode
import FoundationEssentials
import Glibc
import Synchronization
import Testing

/// One test's world: a private temporary directory holding the socket, the processes the test
/// started (each known by pid, each killed when the sandbox goes), and their output files.
final class Sandbox: Sendable {
    let directory: String
    private let started = Mutex<[ChildProcess]>([])
    private let counter = Atomic<Int>(0)

    init() throws {
        var template = Array("/tmp/cama-it-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemError("mkdtemp") }
        directory = String(cString: created)
    }

    /// The default socket of this sandbox.
    var socket: String { directory + "/core.sock" }

    /// The state directory its cores use (through $CAMA_STATE_DIR).
    var stateDirectory: String { directory + "/state" }

    /// What the launchers and cores of this sandbox wrote to `core.log` in its state directory
    /// (empty when there is none).
    var coreLog: String {
        (try? String(contentsOfFile: stateDirectory + "/core.log", encoding: .utf8)) ?? ""
    }

    /// Flips a bit inside the first record of the oldest journal segment, so that no core can
    /// recover the directory; false when there is no journal yet.
    func damageFirstJournalRecord() throws -> Bool {
        guard let journal = StateFiles(directory: stateDirectory).journals().first?.path else { return false }
        var bytes = try FileIO.read(journal)
        bytes[DurableRecord.headerLength + 2] ^= 0x10
        try FileIO.writeAtomically(journal, bytes)
        return true
    }

    /// Starts a core and SIGKILLs it, which leaves its socket file behind: a stale socket.
    func leaveStaleSocket() async throws {
        let dead = try await startCore()
        dead.process.send(SIGKILL)
        _ = await dead.process.waitForExit()
    }

    /// Starts a binary with its stdin from `input` (or /dev/null) and its stdout and stderr in files.
    func start(_ binary: Binary, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> Started {
        try start(executable: binary.path, name: binary.rawValue, arguments, input: input, environment: environment)
    }

    /// Starts any executable (`/bin/sh`, say, to run a binary under limits), the same way.
    func start(executable: String, name: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> Started {
        let number = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        let base = "\(directory)/\(name)-\(number)"
        let inputPath = base + ".in"
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inputPath))
        let stdin = open(inputPath, O_RDONLY | O_CLOEXEC)
        let stdout = open(base + ".out", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let stderr = open(base + ".err", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(stdin)
            close(stdout)
            close(stderr)
        }
        // Every process of this sandbox keeps its state here unless told otherwise, never in
        // the real home directory, and never shared with another test.
        var variables = ProcessEnvironment.current
        variables["CAMA_STATE_DIR"] = stateDirectory
        variables["CHAT_STATE_DIR"] = stateDirectory
        variables["POLL_STATE_DIR"] = stateDirectory
        for (name, value) in environment ?? [:] { variables[name] = value }
        let process = try ChildProcess.spawn(
            executable, arguments: arguments, environment: variables,
            standardInput: stdin, standardOutput: stdout, standardError: stderr)
        started.withLock { $0.append(process) }
        return Started(process: process, outputPath: base + ".out", errorPath: base + ".err")
    }

    /// Runs a binary to completion (killing it after `timeout`) and returns what it did.
    func run(_ binary: Binary, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil, timeout: Duration = .seconds(30)) async throws -> Finished {
        let running = try start(binary, arguments, input: input, environment: environment)
        guard let termination = await running.process.waitForExit(timeout: timeout) else {
            running.process.send(SIGKILL)
            Issue.record("\(binary.rawValue) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
            return Finished(termination: await running.process.waitForExit(), output: running.output, error: running.errorOutput)
        }
        return Finished(termination: termination, output: running.output, error: running.errorOutput)
    }

    /// `shell-client ARGS --socket SOCKET`, run to completion.
    func client(_ arguments: String..., input: String? = nil) async throws -> Finished {
        try await run(.shellClient, arguments + ["--socket", socket], input: input)
    }

    /// Starts core-daemon on this sandbox's socket and waits until it serves.
    func startCore(_ extra: [String] = []) async throws -> Started {
        let core = try start(.coreDaemon, ["--socket", socket] + extra)
        await eventually("core-daemon serves \(socket)") { UnixSocket.isServing(socket) || core.process.termination != nil }
        return core
    }

    /// Every process started here, any core holding this sandbox's socket lock, and any other
    /// process whose command line names this sandbox's directory (a launcher's core, which may
    /// be stopping on its own) is killed; once none of them runs, the directory is removed.
    ///
    /// Killed is not yet gone: a core that a launcher was stopping went on writing its journal
    /// into the directory while it was being removed, and the directory was left behind.
    deinit {
        var victims = started.withLock { $0.map(\.pid) }
        if let holder = SocketLock.holder(of: socket) { victims.append(holder) }
        victims += processes(mentioning: directory)
        for process in started.withLock({ $0 }) { process.send(SIGKILL) }
        for pid in victims where pid > 0 { kill(pid, SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(5)
        while victims.contains(where: { $0 > 0 && processExists($0) }), ContinuousClock.now < deadline {
            usleep(5_000)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A process started by a sandbox.
struct Started: Sendable {
    let process: ChildProcess
    let outputPath: String
    let errorPath: String

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
    var pid: pid_t { process.pid }
}

/// A process that ran to completion.
struct Finished: Sendable, CustomStringConvertible {
    let termination: ChildProcess.Termination
    let output: String
    let error: String

    var status: Int32? {
        if case let .exited(code) = termination { return code }
        return nil
    }

    var description: String { "\(termination); stdout: \(output.debugDescription); stderr: \(error.debugDescription)" }
}

/// The pids of live processes whose command line mentions `text` (its arguments joined by
/// spaces), this process aside.
func processes(mentioning text: String) -> [pid_t] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    return entries.compactMap { entry -> pid_t? in
        guard let pid = pid_t(entry), pid != getpid(),
              let bytes = try? FileIO.read("/proc/\(entry)/cmdline") else { return nil }
        let commandLine = String(decoding: bytes.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        return commandLine.contains(text) && processExists(pid) ? pid : nil
    }
}

/// Whether a process with this pid exists (and is not a zombie).
func processExists(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = status.lastIndex(of: ")") else { return true }
    let state = status[status.index(close, offsetBy: 2)]
    return state != "Z"
}

/// Whether a file (or socket) exists at `path`.
func fileExists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}
