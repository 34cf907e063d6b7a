import ActorNode
import FoundationEssentials
import Glibc
import TodoContract
import Wire

/// `core-daemon`: binds the socket, serves the to-do core until a stop signal, cleans up.
@main
enum CoreDaemonMain {
    static func main() {
        // First, while this is the only thread: a stop signal from now on waits for us.
        Signals.block(Signals.stop)
        signal(SIGPIPE, SIG_IGN)
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            StandardStreams.fail(error, program: DaemonOptions.program)
        }
        if options.showHelp || options.showVersion || options.check || options.repair {
            // These end on their own; a signal keeps its default action.
            Signals.unblock(Signals.stop)
            ProgramMain.run(receiving: []) { await run(options) }
        }
        MemoryTuning.returnLargeBuffersPromptly()
        ProgramMain.run(receiving: Signals.stop) { await run(options) }
    }

    private static func run(_ options: DaemonOptions) async -> Int32 {
        let program = DaemonOptions.program
        if options.showHelp {
            await StandardStreams.out(DaemonOptions.help + "\n")
            return 0
        }
        if options.showVersion {
            await StandardStreams.out("core-daemon \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
            return 0
        }
        let log: @Sendable (String) -> Void = { LogLine.write(program, $0) }
        let environmentVariables = ProcessEnvironment.current
        let stateDirectory = StateDirectory.resolve(option: options.stateDirectory, environment: environmentVariables)
        if options.check {
            let (report, healthy) = StateDirectoryTool.check(
                StateFiles(directory: stateDirectory), state: AppState.self, action: AppAction.self, replay: StateDirectorySetup.replay)
            await StandardStreams.out(report.joined(separator: "\n") + "\n")
            return healthy ? 0 : ExitStatus.rejected.rawValue
        }
        if options.repair {
            guard StateFiles(directory: stateDirectory).exists else {
                StandardStreams.fail(CommandFailure(.rejected, "the state directory \(stateDirectory) does not exist: nothing to repair; check the --state-dir you meant"), program: program)
            }
            let setup: StateDirectorySetup
            do {
                setup = try StateDirectorySetup.claim(stateDirectory)
            } catch {
                StandardStreams.fail(error, program: program)
            }
            do {
                let done = try StateDirectoryTool.repair(setup.files, state: AppState.self, action: AppAction.self, replay: StateDirectorySetup.replay)
                await StandardStreams.out(done.joined(separator: "\n") + "\n")
                setup.lock.release()
                return 0
            } catch {
                setup.lock.release()
                StandardStreams.fail(CommandFailure(.rejected, "cannot repair \(stateDirectory): \(error)"), program: program)
            }
        }
        let path = SocketPath.resolve(option: options.socket, environment: environmentVariables)
        // Blocked since the first line, so none can kill us with the socket left behind;
        // one that came during startup is received first.
        let signals = Signals.receive()

        let binding: ListeningSocket
        let setup: StateDirectorySetup
        let recovered: (state: AppState, revision: UInt64, ledger: ClientLedger)
        let journal: Journal<AppState, AppAction>
        let notices = NoticeBoard()
        let environment = AppEnvironment(notify: notices.post)
        do throws(CommandFailure) {
            binding = try ListeningSocket.open(path: path, environment: environmentVariables, log: log)
            do throws(CommandFailure) {
                setup = try StateDirectorySetup.claim(stateDirectory)
                recovered = try setup.recover(environment: environment, log: log)
                do {
                    journal = try Journal(
                        files: setup.files, policy: options.fsync, nextRevision: recovered.revision + 1,
                        current: SnapshotContent(revision: recovered.revision, at: Date().timeIntervalSince1970, state: recovered.state, ledger: recovered.ledger),
                        snapshotThreshold: options.snapshotThreshold, log: log,
                        beforeFailureExit: { [binding, lock = setup.lock] in
                            binding.release()
                            lock.release()
                        })
                } catch {
                    throw CommandFailure(.rejected, "cannot open the journal in \(stateDirectory): \(error)")
                }
            } catch {
                binding.release()
                throw error
            }
        } catch {
            await LogLine.flush()
            StandardStreams.fail(error, program: program)
        }
        var limits = SocketConnection.Limits.server
        limits.maximumPayloadLength = options.maximumFrameLength
        let listener: SocketListener
        do {
            let budget = InputBudget(limits: .init(soft: options.inputBudget, hard: options.inputBudget * 4))
            listener = try SocketListener(fd: binding.fd, path: binding.path, limits: limits, budget: budget, log: log)
        } catch {
            binding.release()
            StandardStreams.fail(CommandFailure(.rejected, "cannot watch \(path): \(error)"), program: program)
        }

        let core = CoreNode(
            state: recovered.state,
            revision: recovered.revision,
            ledger: recovered.ledger,
            commit: journal,
            reducer: AppReducer.reducer,
            environment: environment,
            handshakeTimeout: options.handshakeTimeout,
            trace: options.trace,
            admits: AppReducer.admits,
            log: log)
        notices.connect(core.notify)
        if let startup = AppReducer.startup(for: await core.current.state) {
            await core.send(startup)
        }
        let startRevision = await core.current.revision
        let server = SocketServer<AppState, AppAction>(listener: listener, log: log)
        log("serving \(binding.path)\(binding.isInherited ? " (socket passed by the supervisor)" : "") at revision \(startRevision) (protocol \(ProtocolVersion.current), fsync \(options.fsync.rawValue), state in \(stateDirectory), core \(core.instanceID))")

        // A stop signal, or the launcher that supervises us going away, ends the core the same
        // way: stop taking connections, commit what was applied (releasing its acks), then say
        // bye to everyone.
        let stopRequests = Chan<String>()
        let signalWatcher = Task {
            for await signal in signals { stopRequests.trySend("received \(Signals.name(signal))") }
        }
        let supervisor = SupervisorWatch.start(environment: environmentVariables) {
            // Our stdout and stderr were the launcher's log pipe, which went with it: the lines
            // that say how this core ends go to the log file itself.
            redirectOutput(to: stateDirectory + "/core.log")
            stopRequests.trySend("the launcher that supervises this core is gone")
        }
        let stopper = Task {
            guard let reason = await stopRequests.receive() else { return }
            log("\(reason); shutting down")
            listener.close()
            await journal.flush()
            await server.shutdown(reason: "the core is shutting down")
        }
        let serving = Task { await server.run { session in await core.serve(session) } }
        ReadinessNotification.send("READY=1\nMAINPID=\(getpid())\nSTATUS=serving at revision \(startRevision)", environment: environmentVariables)
        await serving.value
        signalWatcher.cancel()
        _ = supervisor
        stopper.cancel()
        await journal.close()
        binding.release()
        setup.lock.release()
        let final = await core.current
        log("stopped at revision \(final.revision)")
        await LogLine.flush()
        return 0
    }

    /// Points stdout and stderr at the end of the file at `path` (created 0600 if missing).
    private static func redirectOutput(to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        dup2(fd, STDOUT_FILENO)
        dup2(fd, STDERR_FILENO)
        close(fd)
    }
}
