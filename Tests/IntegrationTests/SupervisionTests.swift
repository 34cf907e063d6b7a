import ActorNode
import FoundationEssentials
import Glibc
import Testing
import Wire

/// cama-launch as a supervisor: restarts nobody notices, a crash loop it gives up on, no
/// orphans, and cores started by systemd's socket activation.
@Suite("Supervision")
struct SupervisionTests {
    private func startLauncher(_ sandbox: Sandbox, _ extra: [String] = []) async throws -> Started {
        let launcher = try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket] + extra)
        await eventually("the launcher's core serves") { await corePid(sandbox.socket) != nil }
        return launcher
    }

    @Test("the core SIGKILLed repeatedly under load: no send fails, watchers end at the final state, nothing lost or doubled")
    func ridesThroughRestarts() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        let watchers = try (0 ..< 2).map { _ in try sandbox.start(.shellClient, ["watch", "--json", "--socket", sandbox.socket, "--timeout", "30"]) }
        try await eventually("the watchers are attached") { try await attachedShells(sandbox.socket) == 2 }

        let kills = Task {
            var random = SeededRandom(seed: 77)
            var killed = 0
            for _ in 0 ..< 3 {
                try await Task.sleep(for: .milliseconds(Int64(150 + random.next() % 300)))
                guard let core = await corePid(sandbox.socket) else { continue }
                kill(core, SIGKILL)
                killed += 1
                await eventually("a new core after killing \(core)") { await corePid(sandbox.socket).map { $0 != core } ?? false }
            }
            return killed
        }
        // Three senders of separate `send` processes, and one pipeline of `send -`, at once.
        let results = try await withThrowingTaskGroup(of: [Finished].self) { group in
            for sender in 0 ..< 3 {
                group.addTask {
                    var results: [Finished] = []
                    for number in 1 ... 12 {
                        results.append(try await sandbox.run(.shellClient, ["send", "add", "s\(sender)-\(number)", "--socket", sandbox.socket, "--timeout", "30"]))
                    }
                    return results
                }
            }
            group.addTask {
                let lines = (1 ... 40).map { "add p-\($0)" }.joined(separator: "\n") + "\n"
                return [try await sandbox.run(.shellClient, ["send", "-", "--socket", sandbox.socket, "--timeout", "30"], input: lines)]
            }
            var all: [Finished] = []
            for try await part in group { all += part }
            return all
        }
        #expect(try await kills.value == 3)
        let failed = results.filter { $0.status != 0 }
        #expect(failed.isEmpty, "sends failed: \(failed)")

        let final = try await sandbox.client("state", "--json")
        let state = try WireJSON.decode(JSONValue.self, from: Array(final.output.utf8))
        guard case let .array(items)? = state["todo", "items"] else {
            Issue.record("no items")
            return
        }
        let texts = items.compactMap { $0["text"]?.stringValue }
        #expect(texts.count == 76 && Set(texts).count == 76, "every add applied exactly once (\(texts.count) items, \(Set(texts).count) distinct)")
        #expect(texts.filter { $0.hasPrefix("p-") } == (1 ... 40).map { "p-\($0)" })
        #expect(state["revision"]?.intValue == 76)
        for watcher in watchers {
            await eventually("watcher \(watcher.pid) ends at the final state") { watcher.output.hasSuffix(final.output) }
            #expect(watcher.errorOutput.contains("reconnected to the core"))
        }
    }

    @Test("a crash loop makes the launcher give up within its window, saying why")
    func givesUp() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox, ["--max-restarts", "2", "--restart-window", "20"])
        for number in 1 ... 3 { #expect(try await sandbox.client("send", "add", "n\(number)").status == 0) }
        // Damage the journal, then kill the core: every restart now refuses to recover it.
        guard let core = await corePid(sandbox.socket), try sandbox.damageFirstJournalRecord() else {
            Issue.record("no core or journal")
            return
        }
        let started = ContinuousClock.now
        kill(core, SIGKILL)
        let termination = await launcher.process.waitForExit(timeout: .seconds(20))
        #expect(termination == .exited(1))
        #expect(ContinuousClock.now - started < .seconds(15))
        let error = launcher.errorOutput
        #expect(error.contains("cama-launch: giving up: core-daemon failed 3 times in"), "\(error.suffix(1500))")
        #expect(error.contains("(more than 2 restarts within 20.0 s)"))
        #expect(error.contains("Its last log lines:"))
        #expect(error.contains("cannot recover the state"), "the core's own last words are shown")
        #expect(!fileExists(sandbox.socket), "the launcher removes the socket when it gives up")
        #expect(sandbox.coreLog.contains("giving up: core-daemon failed 3 times in"), "a detached launcher's reason is in its log")
    }

    @Test("a launcher removes the readiness sockets that killed launchers left beside the socket")
    func removesLeftNotifySockets() async throws {
        let sandbox = try Sandbox()
        // A pid above the kernel's limit (pid_max is at most 2^22): no such process.
        let leftover = sandbox.directory + "/.notify-99999999"
        close(open(leftover, O_WRONLY | O_CREAT, 0o600))
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        #expect(!fileExists(leftover))
        #expect(fileExists(sandbox.directory + "/.notify-\(launcher.pid)"), "its own stays while it runs")
    }

    @Test("a SIGKILLed launcher leaves no core behind: it stops within two seconds")
    func noOrphans() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        guard let core = await corePid(sandbox.socket) else {
            Issue.record("no core")
            return
        }
        let killed = Self.now()
        launcher.process.send(SIGKILL)
        await eventually("the core exits", timeout: .seconds(10)) { !processExists(core) }
        // Its log pipe went with the launcher; the core's last lines are in core.log all the same.
        let log = sandbox.coreLog
        #expect(log.contains("core-daemon[\(core)]: the launcher that supervises this core is gone; shutting down"), "\(log)")
        let stopped = log.split(separator: "\n").first { $0.hasSuffix("core-daemon[\(core)]: stopped at revision 0") }
        // Timed by the core's own last line, not by when this test, sharing the machine with the
        // whole suite, gets to look.
        let moment = try #require(stopped.flatMap { Self.moment(of: String($0)) }, "\(log)")
        #expect(moment - killed <= 2, "the core stopped \(moment - killed) s after its launcher was killed")
    }

    /// Seconds since 1970, as log lines count them.
    private static func now() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The moment a log line begins with (`2026-11-22T10:15:02.123Z ...`), in seconds since 1970.
    private static func moment(of line: String) -> Double? {
        let fields = line.prefix { $0 != " " }.split(whereSeparator: { "-T:.Z".contains($0) }).compactMap { Int32($0) }
        guard fields.count == 7 else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (fields[0] - 1900, fields[1] - 1, fields[2])
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (fields[3], fields[4], fields[5])
        return Double(timegm(&parts)) + Double(fields[6]) / 1000
    }

    @Test("SIGHUP to the launcher stops the core gracefully and removes the socket", arguments: [SIGHUP, SIGINT])
    func stopSignals(signal: Int32) async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        #expect(try await sandbox.client("send", "add", "kept").status == 0)
        let core = await corePid(sandbox.socket)
        launcher.process.send(signal)
        #expect(await launcher.process.waitForExit(timeout: .seconds(15)) == .exited(0))
        if let core { #expect(!processExists(core)) }
        #expect(!fileExists(sandbox.socket))
        #expect(!fileExists(sandbox.socket + ".lock"))
        #expect(!fileExists(sandbox.socket + ".launcher"))
        let log = sandbox.coreLog
        #expect(log.contains("received \(Signals.name(signal)); stopping"))
        #expect(log.contains("core-daemon[\(core ?? 0)]: received SIGTERM; shutting down"))
    }

    @Test("clients that connect while the core restarts wait in the launcher's backlog")
    func backlogDuringRestart() async throws {
        let sandbox = try Sandbox()
        let launcher = try await startLauncher(sandbox)
        defer { launcher.process.send(SIGTERM) }
        guard let core = await corePid(sandbox.socket) else { return }
        kill(core, SIGKILL)
        // Straight away, before a new core exists: the connection is accepted by the kernel.
        let result = try await sandbox.client("state")
        #expect(result.status == 0, "\(result)")
        #expect(UnixSocket.isServing(sandbox.socket))
    }

    @Test("core-daemon runs under systemd-socket-activate",
          .enabled(if: access("/usr/bin/systemd-socket-activate", X_OK) == 0 || access("/bin/systemd-socket-activate", X_OK) == 0,
                   "systemd-socket-activate is not installed (apt-get install systemd); .ci/run installs it"))
    func systemdSocketActivation() async throws {
        let sandbox = try Sandbox()
        let activator = access("/usr/bin/systemd-socket-activate", X_OK) == 0 ? "/usr/bin/systemd-socket-activate" : "/bin/systemd-socket-activate"
        let process = try ChildProcess.spawn(
            activator, arguments: ["-l", sandbox.socket, "-E", "CAMA_STATE_DIR=\(sandbox.stateDirectory)", Binary.coreDaemon.path],
            standardOutput: open("/dev/null", O_WRONLY | O_CLOEXEC), standardError: open("/dev/null", O_WRONLY | O_CLOEXEC))
        defer { process.send(SIGKILL) }
        await eventually("systemd-socket-activate listens") { fileExists(sandbox.socket) }
        // The first connection makes it start core-daemon with the socket as descriptor 3.
        let sent = try await sandbox.client("send", "add", "socket activated")
        #expect(sent.status == 0, "\(sent)")
        #expect(try await sandbox.client("state").output.contains("socket activated"))
        process.send(SIGTERM)
        #expect(await process.waitForExit(timeout: .seconds(10)) == .exited(0))
    }
}
