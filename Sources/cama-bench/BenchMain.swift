import ActorNode
import FoundationEssentials
import Glibc
import Synchronization
import Wire

/// `cama-bench`: N clients, each sending M actions one at a time (the next only after the
/// previous one's ack), against a running core; prints the throughput and ack latencies.
/// Like `redis-benchmark` without pipelining, so the two can be compared in one run.
@main
enum BenchMain {
    static let program = "cama-bench"
    static let help = """
    cama-bench: measure a core. N clients each send M actions, one at a time.

    Usage: cama-bench [--socket PATH] [--clients N] [--actions M] [--action JSON]
           cama-bench --restart-rounds R [--spacing SECONDS] [--socket PATH]

      --clients N     concurrent clients, each on its own connection (default 1)
      --actions M     actions per client (default 1000)
      --action JSON   the action to send (default {"counter":"increment"})
      --restart-rounds R
                      instead: R times, SIGKILL the core (it must run under cama-launch) and
                      time its death to the next acknowledged action of a connected client
      --spacing S     seconds between rounds (default 11: past the launcher's 10 s of health,
                      so each round meets the first restart delay, not a backed-off one)
      -h, --help      show this help
      --version       show the version

    Prints one line: clients, actions applied in all, elapsed seconds, actions per second,
    and the ack latency's median and 99th percentile in microseconds; or, with
    --restart-rounds, each round's milliseconds and their median.
    """

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        var socket: String?
        var clients = 1
        var actions = 1000
        var actionJSON = #"{"counter":"increment"}"#
        var restartRounds: Int?
        var spacing: Duration = .seconds(11)
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
            ProgramMain.fail(error, program: program)
        }
        let action: JSONValue
        do {
            action = try WireJSON.decode(JSONValue.self, from: Array(actionJSON.utf8))
        } catch {
            ProgramMain.fail(.usage("--action is not JSON", program: program), program: program)
        }
        let path = AppNaming("cama").socketPath(option: socket, environment: ProcessEnvironment.current)
        do {
            _ = try UnixSocket.address(path)
        } catch {
            ProgramMain.fail(.usage(error.description, program: program), program: program)
        }
        if let restartRounds {
            await restarts(path: path, rounds: restartRounds, spacing: spacing, action: action)
            return
        }

        let latencies: [Duration]
        let elapsed: Duration
        do {
            (latencies, elapsed) = try await measure(path: path, clients: clients, actions: actions, action: action)
        } catch {
            ProgramMain.fail(CommandFailure(.unreachable, "\(error)"), program: program)
        }
        guard !latencies.isEmpty else {
            ProgramMain.fail(CommandFailure(.rejected, "no action was applied"), program: program)
        }
        func microseconds(_ quantile: Double) -> Int {
            let duration = latencies[min(latencies.count - 1, Int(Double(latencies.count) * quantile))]
            return Int(duration.seconds * 1_000_000)
        }
        let rate = Double(latencies.count) / elapsed.seconds
        await StandardStreams.out("clients=\(clients) actions=\(latencies.count) seconds=\((elapsed.seconds * 1000).rounded() / 1000) actions_per_second=\(Int(rate)) p50_us=\(microseconds(0.5)) p99_us=\(microseconds(0.99))\n")
    }

    /// Connects every client, then runs them all from one thread of its own, each sending
    /// `actions` actions one at a time; returns every ack's latency, sorted, and the time the
    /// whole run took.
    static func measure(path: String, clients: Int, actions: Int, action: JSONValue) async throws(BenchConnection.Failure) -> ([Duration], Duration) {
        var connections: [BenchConnection] = []
        for index in 0 ..< clients {
            connections.append(try BenchConnection(path: path, client: "bench-\(getpid())-\(index)", action: action))
        }
        let handoff = Mutex<[BenchConnection]?>(connections)
        let start = ContinuousClock.now
        let result: Result<[Duration], BenchConnection.Failure> = await withCheckedContinuation { continuation in
            SystemThread.detach(name: "cama-bench") {
                guard var connections = handoff.withLock({ $0.take() }) else { return }
                do throws(BenchConnection.Failure) {
                    continuation.resume(returning: .success(try BenchDriver.run(&connections, actions: actions)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        return (try result.get().sorted(), elapsed)
    }

    /// Kills the core `rounds` times and measures, each time, the time from its death to the
    /// ack of an action a connected client sends right after.
    static func restarts(path: String, rounds: Int, spacing: Duration, action: JSONValue) async {
        let link = ShellLink<JSONValue, JSONValue>(
            hello: Hello(role: .script, client: "bench-restart-\(getpid())", name: "cama-bench restart"),
            reconnection: .init(window: .seconds(60))
        ) { () throws(LinkError) in try await SocketClient.connect(to: path) }
        guard let welcome = try? await link.open() else {
            ProgramMain.fail(CommandFailure(.unreachable, "no core at \(path)"), program: program)
        }
        var pid = welcome.pid
        var times: [Double] = []
        for round in 1 ... rounds {
            if round > 1 { try? await Task.sleep(for: spacing) }
            guard kill(pid, SIGKILL) == 0 else {
                ProgramMain.fail(CommandFailure(.rejected, "cannot kill the core (pid \(pid))"), program: program)
            }
            let died = ContinuousClock.now
            guard case .applied? = try? await link.send(action) else {
                ProgramMain.fail(CommandFailure(.unreachable, "round \(round): the action was not applied after the restart"), program: program)
            }
            let milliseconds = ((ContinuousClock.now - died).seconds * 10_000).rounded() / 10
            times.append(milliseconds)
            await StandardStreams.out("round \(round): core pid \(pid) killed; next ack after \(milliseconds) ms\n")
            guard let current = await currentPid(path) else {
                ProgramMain.fail(CommandFailure(.unreachable, "no core after round \(round)"), program: program)
            }
            pid = current
        }
        await link.close()
        let sorted = times.sorted()
        await StandardStreams.out("restart_rounds=\(rounds) median_ms=\(sorted[sorted.count / 2]) min_ms=\(sorted.first!) max_ms=\(sorted.last!)\n")
    }

    /// The pid of the core that welcomes a new client now.
    static func currentPid(_ path: String) async -> Int32? {
        guard let session: ShellSession<JSONValue, JSONValue> = try? await SocketClient.connect(to: path) else { return nil }
        let probe = ShellLink(session: session, hello: Hello(role: .script, client: "bench-probe-\(getpid())", name: "cama-bench"))
        defer { Task { await probe.close() } }
        return (try? await probe.open())?.pid
    }
}

