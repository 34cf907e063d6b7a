import ActorNode
import FoundationEssentials
import Glibc
import Synchronization
import Wire

/// `cama-bench`: N clients, each sending M actions one at a time (the next only after the
/// previous one's ack) or K at a time (`--pipeline`), against a running core, optionally with
/// watchers attached; prints the throughput and ack latencies. Like `redis-benchmark`, so the
/// two can be compared in one run. `--wait-shells` waits until the core counts N shells.
@main
enum BenchMain {
    static let program = "cama-bench"
    static let help = """
    cama-bench: measure a core. N clients each send M actions, one at a time (or K).

    Usage: cama-bench [--socket PATH] [--clients N] [--actions M] [--action JSON]
                      [--pipeline K] [--watchers W]
           cama-bench --wait-shells N [--timeout SECONDS] [--socket PATH]
           cama-bench --restart-rounds R [--spacing SECONDS] [--socket PATH]

      --clients N     concurrent clients, each on its own connection (default 1)
      --actions M     actions per client (default 1000)
      --action JSON   the action to send (default {"counter":"increment"})
      --pipeline K    actions each client keeps in flight, sending one more per ack
                      (default 1: one at a time); latencies then include the wait in line
      --watchers W    also attach W watchers (role watcher) before measuring, which the
                      same thread reads while the actions run and throws away
      --wait-shells N instead: wait until the core reports N or more shells and watchers
                      attached (the welcome's shells, asked every 50 ms), print shells=N;
                      exit 3 if it does not within --timeout (default 30 s)
      --restart-rounds R
                      instead: R times, SIGKILL the core (it must run under cama-launch) and
                      time its death to the next acknowledged action of a connected client
      --spacing S     seconds between rounds (default 11: past the launcher's 10 s of health,
                      so each round meets the first restart delay, not a backed-off one)
      -h, --help      show this help
      --version       show the version

    Prints one line: clients, actions acknowledged in all, elapsed seconds, actions per second,
    and the ack latency's median and 99th percentile in microseconds; or, with
    --restart-rounds, each round's milliseconds and their median.
    """

    /// Says what went wrong on stderr and exits with its status.
    private static func fail(_ failure: CommandFailure, program: String) -> Never {
        exit(ProgramMain.report(failure, program: program))
    }

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        var socket: String?
        var clients = 1
        var actions = 1000
        var actionJSON = #"{"counter":"increment"}"#
        var restartRounds: Int?
        var spacing: Duration = .seconds(11)
        var pipeline = 1
        var watchers = 0
        var waitShells: Int?
        var timeout: Duration = .seconds(30)
        var cursor = ArgumentCursor(Array(CommandLine.arguments.dropFirst()), program: program)
        do throws(CommandFailure) {
            while let token = cursor.next() {
                switch token {
                case .option("--socket"): socket = try cursor.value(for: "--socket")
                case .option("--clients"): clients = try cursor.number(for: "--clients", in: 1 ... 1024)
                case .option("--actions"): actions = try cursor.number(for: "--actions", in: 1 ... 10_000_000)
                case .option("--action"): actionJSON = try cursor.value(for: "--action")
                case .option("--restart-rounds"): restartRounds = try cursor.number(for: "--restart-rounds", in: 1 ... 1000)
                case .option("--spacing"): spacing = try cursor.seconds(for: "--spacing", in: 0 ... 3600)
                case .option("--pipeline"): pipeline = try cursor.number(for: "--pipeline", in: 1 ... 512)
                case .option("--watchers"): watchers = try cursor.number(for: "--watchers", in: 0 ... 1024)
                case .option("--wait-shells"): waitShells = try cursor.number(for: "--wait-shells", in: 0 ... 1_000_000)
                case .option("--timeout"): timeout = try cursor.seconds(for: "--timeout", in: 0 ... 3600)
                case .option("-h"), .option("--help"):
                    await StandardStreams.out(help + "\n")
                    return
                case .option("--version"):
                    await StandardStreams.out("cama-bench \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
                    return
                case let .option(other): throw cursor.unknown(other)
                case let .operand(other): throw cursor.unexpected(other)
                }
            }
        } catch {
            fail(error, program: program)
        }
        let action: JSONValue
        do {
            action = try WireJSON.decode(JSONValue.self, from: Array(actionJSON.utf8))
        } catch {
            fail(.usage("--action is not JSON", program: program), program: program)
        }
        let path = AppNaming("cama").socketPath(option: socket, environment: ProcessEnvironment.current)
        do {
            _ = try UnixSocket.address(path)
        } catch {
            fail(.usage(error.description, program: program), program: program)
        }
        if let waitShells {
            await self.waitShells(path: path, count: waitShells, timeout: timeout)
            return
        }
        if let restartRounds {
            await restarts(path: path, rounds: restartRounds, spacing: spacing, action: action)
            return
        }

        let latencies: [Duration]
        let elapsed: Duration
        do {
            (latencies, elapsed) = try await measure(
                path: path, clients: clients, actions: actions, action: action, pipeline: pipeline, watchers: watchers)
        } catch {
            fail(CommandFailure(.unreachable, "\(error)"), program: program)
        }
        guard !latencies.isEmpty else {
            fail(CommandFailure(.rejected, "no action was applied"), program: program)
        }
        func microseconds(_ quantile: Double) -> Int {
            let duration = latencies[min(latencies.count - 1, Int(Double(latencies.count) * quantile))]
            return Int(duration.seconds * 1_000_000)
        }
        let rate = Double(latencies.count) / elapsed.seconds
        await StandardStreams.out("clients=\(clients) actions=\(latencies.count) seconds=\((elapsed.seconds * 1000).rounded() / 1000) actions_per_second=\(Int(rate)) p50_us=\(microseconds(0.5)) p99_us=\(microseconds(0.99))\n")
    }

    /// Attaches `watchers` watchers and connects every client, then runs them all from one
    /// thread of its own, each sending `actions` actions with `pipeline` in flight; returns
    /// every ack's latency, sorted, and the time the whole run took.
    static func measure(
        path: String, clients: Int, actions: Int, action: JSONValue, pipeline: Int, watchers: Int
    ) async throws(BenchConnection.Failure) -> ([Duration], Duration) {
        var watching: [BenchConnection] = []
        for index in 0 ..< watchers {
            watching.append(try BenchConnection(path: path, client: "bench-\(getpid())-watcher-\(index)", role: .watcher, action: action))
        }
        var connections: [BenchConnection] = []
        for index in 0 ..< clients {
            connections.append(try BenchConnection(path: path, client: "bench-\(getpid())-\(index)", action: action))
        }
        let handoff = Mutex<([BenchConnection], [BenchConnection])?>((connections, watching))
        let start = ContinuousClock.now
        let result: Result<[Duration], BenchConnection.Failure> = await withCheckedContinuation { continuation in
            SystemThread.detach(name: "cama-bench") {
                guard var (connections, watching) = handoff.withLock({ $0.take() }) else { return }
                do throws(BenchConnection.Failure) {
                    continuation.resume(returning: .success(
                        try BenchDriver.run(&connections, actions: actions, pipeline: pipeline, watchers: &watching)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        return (try result.get().sorted(), elapsed)
    }

    /// Asks the core, every 50 ms, how many shells and watchers are attached (a new script
    /// connection's welcome says), until it is `count` or more; prints it, or fails after
    /// `timeout`.
    static func waitShells(path: String, count: Int, timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        var last = "no answer"
        while true {
            do throws(BenchConnection.Failure) {
                let probe = try BenchConnection(path: path, client: "bench-probe-\(getpid())", action: .null)
                probe.close()
                if probe.shells >= count {
                    await StandardStreams.out("shells=\(probe.shells)\n")
                    return
                }
                last = "\(probe.shells) attached"
            } catch {
                last = error.description
            }
            guard ContinuousClock.now < deadline else {
                fail(CommandFailure(.unreachable, "fewer than \(count) shells after \(timeout) (\(last))"), program: program)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills the core `rounds` times and measures, each time, the time from its death to the
    /// ack of an action a connected client sends right after.
    static func restarts(path: String, rounds: Int, spacing: Duration, action: JSONValue) async {
        let link = ShellLink<JSONValue, JSONValue>(
            hello: Hello(role: .script, client: "bench-restart-\(getpid())", name: "cama-bench restart"),
            reconnection: .init(window: .seconds(60))
        ) { () throws(LinkError) in try await SocketClient.connect(to: path) }
        guard let welcome = try? await link.open() else {
            fail(CommandFailure(.unreachable, "no core at \(path)"), program: program)
        }
        var pid = welcome.pid
        var times: [Double] = []
        for round in 1 ... rounds {
            if round > 1 { try? await Task.sleep(for: spacing) }
            guard kill(pid, SIGKILL) == 0 else {
                fail(CommandFailure(.rejected, "cannot kill the core (pid \(pid))"), program: program)
            }
            let died = ContinuousClock.now
            guard case .applied? = try? await link.send(action) else {
                fail(CommandFailure(.unreachable, "round \(round): the action was not applied after the restart"), program: program)
            }
            let milliseconds = ((ContinuousClock.now - died).seconds * 10_000).rounded() / 10
            times.append(milliseconds)
            await StandardStreams.out("round \(round): core pid \(pid) killed; next ack after \(milliseconds) ms\n")
            guard let current = await currentPid(path) else {
                fail(CommandFailure(.unreachable, "no core after round \(round)"), program: program)
            }
            pid = current
        }
        await link.close()
        let sorted = times.sorted()
        await StandardStreams.out("restart_rounds=\(rounds) median_ms=\(sorted[sorted.count / 2]) min_ms=\(sorted.first!) max_ms=\(sorted.last!)\n")
    }

    /// The pid of the core that welcomes a new client now.
    static func currentPid(_ path: String) async -> Int32? {
        guard let session = try? await SocketClient.connect(to: path) else { return nil }
        let probe = ShellLink<JSONValue, JSONValue>(session: session, hello: Hello(role: .script, client: "bench-probe-\(getpid())", name: "cama-bench"))
        defer { Task { await probe.close() } }
        return (try? await probe.open())?.pid
    }
}

