import ActorNode
import FoundationEssentials
import Glibc
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

      --clients N     concurrent clients, each on its own connection (default 1)
      --actions M     actions per client (default 1000)
      --action JSON   the action to send (default {"counter":"increment"})

    Prints one line: clients, actions, elapsed seconds, actions per second, and the ack
    latency's median and 99th percentile in microseconds.
    """

    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        var socket: String?
        var clients = 1
        var actions = 1000
        var actionJSON = #"{"counter":"increment"}"#
        var cursor = ArgumentCursor(Array(CommandLine.arguments.dropFirst()), program: program)
        do throws(CommandFailure) {
            while let token = cursor.next() {
                switch token {
                case .option("--socket"): socket = try cursor.value(for: "--socket")
                case .option("--clients"): clients = try cursor.number(for: "--clients", in: 1 ... 1024)
                case .option("--actions"): actions = try cursor.number(for: "--actions", in: 1 ... 10_000_000)
                case .option("--action"): actionJSON = try cursor.value(for: "--action")
                case .option("-h"), .option("--help"):
                    await StandardStreams.out(help + "\n")
                    return
                case let .option(other): throw cursor.unknown(other)
                case let .operand(other): throw cursor.unexpected(other)
                }
            }
        } catch {
            StandardStreams.fail(error, program: program)
        }
        let action: JSONValue
        do {
            action = try WireJSON.decode(JSONValue.self, from: Array(actionJSON.utf8))
        } catch {
            StandardStreams.fail(.usage("--action is not JSON", program: program), program: program)
        }
        let path = SocketPath.resolve(option: socket, environment: ProcessEnvironment.current)

        var links: [ShellLink<JSONValue, JSONValue>] = []
        for index in 0 ..< clients {
            do {
                let session: ShellSession<JSONValue, JSONValue> = try await SocketClient.connect(to: path)
                let link = ShellLink(session: session, hello: Hello(role: .script, client: "bench-\(getpid())-\(index)", name: "cama-bench"))
                _ = try await link.open()
                links.append(link)
            } catch {
                StandardStreams.fail(CommandFailure(.unreachable, "\(error)"), program: program)
            }
        }
        let perClient = actions
        let start = ContinuousClock.now
        let latencies = await withTaskGroup(of: [Duration].self) { group in
            for link in links {
                group.addTask {
                    var own: [Duration] = []
                    own.reserveCapacity(perClient)
                    for _ in 0 ..< perClient {
                        let sent = ContinuousClock.now
                        guard case .applied? = try? await link.send(action) else { return own }
                        own.append(ContinuousClock.now - sent)
                    }
                    return own
                }
            }
            var all: [Duration] = []
            for await own in group { all += own }
            return all
        }.sorted()
        let elapsed = ContinuousClock.now - start
        for link in links { await link.close() }
        guard !latencies.isEmpty else {
            StandardStreams.fail(CommandFailure(.rejected, "no action was applied"), program: program)
        }
        func microseconds(_ quantile: Double) -> Int {
            let duration = latencies[min(latencies.count - 1, Int(Double(latencies.count) * quantile))]
            return Int(duration.seconds * 1_000_000)
        }
        let rate = Double(latencies.count) / elapsed.seconds
        await StandardStreams.out("clients=\(clients) actions=\(latencies.count) seconds=\((elapsed.seconds * 1000).rounded() / 1000) actions_per_second=\(Int(rate)) p50_us=\(microseconds(0.5)) p99_us=\(microseconds(0.99))\n")
    }
}
