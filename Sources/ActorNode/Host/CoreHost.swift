import FoundationEssentials
import Glibc
import Wire

/// The daemon of any app: everything a core needs besides the app's own logic. An app's
/// `main` is one line: it ends the process with the status ``main()`` returns (see
/// ``CoreApp``).
///
/// It parses the command line (``HostOptions``), then, to serve: takes the socket (its own, or
/// one passed by socket activation), claims and recovers the state directory, opens the
/// journal, sends the app's startup actions, serves clients until a stop signal or the end of
/// its launcher, and says bye to everyone; with readiness reported to a supervisor and every
/// line logged to stderr. A journal that cannot be written stops the core with status 70, its
/// socket and lock removed first.
public enum CoreHost<App: CoreApp> {
    /// The whole program. Call it from `main`, which ends the process with what it returns:
    /// it blocks the stop signals before any other thread exists, and returns the exit status
    /// once the core is done.
    public static func main() -> Int32 {
        // First, while this is the only thread: a stop signal from now on waits for us.
        Signals.block(Signals.stop)
        signal(SIGPIPE, SIG_IGN)
        let options: HostOptions
        do {
            options = try HostOptions.parse(Array(CommandLine.arguments.dropFirst()), program: App.program)
        } catch {
            return ProgramMain.report(error, program: App.program)
        }
        guard options.mode == .serve else {
            // These end on their own; a signal keeps its default action.
            Signals.unblock(Signals.stop)
            return ProgramMain.run(program: App.program, receiving: []) { () throws(CommandFailure) in try await runOnce(options) }
        }
        // Before anything starts a thread or opens a file: a core that runs out of descriptors
        // while it starts is ended by the runtime (see ``DescriptorLimit``), not told why, and
        // once Swift's concurrency runs, libdispatch's pool monitor may already have trapped
        // on a busy machine while this line is written.
        guard DescriptorLimit.current >= DescriptorLimit.minimumForCore else {
            let failure = CommandFailure(.rejected, "cannot serve with a limit of \(DescriptorLimit.current) open files; a core needs at least \(DescriptorLimit.minimumForCore): raise the limit ('ulimit -n')")
            return ProgramMain.report(failure, program: App.program)
        }
        MemoryTuning.returnLargeBuffersPromptly()
        return ProgramMain.run(program: App.program, receiving: Signals.stop) { () throws(CommandFailure) in try await serve(options) }
    }

    /// `--help`, `--version`, `--print-paths`, `--check` and `--repair`.
    static func runOnce(_ options: HostOptions) async throws(CommandFailure) -> Int32 {
        let environmentVariables = ProcessEnvironment.current
        let stateDirectory = App.naming.stateDirectory(option: options.stateDirectory, environment: environmentVariables)
        switch options.mode {
        case .help:
            await StandardStreams.out(HostOptions.help(program: App.program, summary: App.summary, naming: App.naming) + "\n")
            return 0
        case .version:
            await StandardStreams.out("\(App.program) \(App.version) (protocol \(ProtocolVersion.current))\n")
            return 0
        case .printPaths:
            let socket = App.naming.socketPath(option: options.socket, environment: environmentVariables)
            await StandardStreams.out("\(socket)\n\(stateDirectory)\n")
            return 0
        case .check:
            let (report, healthy) = StateDirectoryTool.check(
                StateFiles(directory: stateDirectory), state: App.State.self, action: App.Action.self, replay: StateDirectorySetup<App>.replay)
            await StandardStreams.out(report.joined(separator: "\n") + "\n")
            return healthy ? 0 : ExitStatus.rejected.rawValue
        case .repair:
            guard StateFiles(directory: stateDirectory).exists else {
                throw CommandFailure(.rejected, "the state directory \(stateDirectory) does not exist: nothing to repair; check the --state-dir you meant")
            }
            let setup = try StateDirectorySetup<App>.claim(stateDirectory)
            defer { setup.lock.release() }
            do {
                let done = try StateDirectoryTool.repair(setup.files, state: App.State.self, action: App.Action.self, replay: StateDirectorySetup<App>.replay)
                await StandardStreams.out(done.joined(separator: "\n") + "\n")
                return 0
            } catch {
                throw CommandFailure(.rejected, "cannot repair \(stateDirectory): \(error)")
            }
        case let .at(revision):
            let line = try state(at: revision, in: StateFiles(directory: stateDirectory))
            await StandardStreams.out(line)
            return 0
        case .serve:
            return try await serve(options)
        }
    }

    /// `--at REV`: the state at `revision` as `state --json` prints it (``StateAtRevision``).
    /// - Parameters:
    ///   - revision: the revision to show.
    ///   - files: the state directory.
    static func state(at revision: UInt64, in files: StateFiles) throws(CommandFailure) -> String {
        do throws(LookBackFailure) {
            let found = try StateAtRevision<App>.state(at: revision, in: files)
            return StateJSON.line(found.state, revision: found.revision)
        } catch {
            throw CommandFailure(.rejected, error.message)
        }
    }

    /// Serves until a stop signal, or until the launcher that supervises this core is gone.
    static func serve(_ options: HostOptions) async throws(CommandFailure) -> Int32 {
        let program = App.program
        let log: @Sendable (String) -> Void = { LogLine.write(program, $0) }
        let environmentVariables = ProcessEnvironment.current
        let stateDirectory = App.naming.stateDirectory(option: options.stateDirectory, environment: environmentVariables)
        let path = App.naming.socketPath(option: options.socket, environment: environmentVariables)
        // Blocked since main's first line, so none can kill us with the socket left behind;
        // one that came during startup is received first.
        let signals = Signals.receive()

        let notices = NoticeBoard()
        let environment = App.environment(CoreServices(notify: notices.post))
        let binding: ListeningSocket
        let setup: StateDirectorySetup<App>
        let recovered: (state: App.State, revision: UInt64, ledger: ClientLedger, timers: DurableTimers<App.Action>)
        let quarantine: Quarantine
        let journal: JournalWriter<App.State>
        do throws(CommandFailure) {
            binding = try ListeningSocket.open(path: path, environment: environmentVariables, program: program, log: log)
            do throws(CommandFailure) {
                setup = try StateDirectorySetup<App>.claim(stateDirectory)
                quarantine = setup.quarantine(log: log)
                recovered = try setup.recover(environment: environment, log: log)
                do {
                    journal = try JournalWriter(
                        files: setup.files, policy: options.fsync, nextRevision: recovered.revision + 1,
                        snapshotThreshold: options.snapshotThreshold, retention: options.keepHistory, log: log)
                } catch {
                    setup.lock.release()
                    throw CommandFailure(.rejected, "cannot open the journal in \(stateDirectory): \(error)")
                }
            } catch {
                binding.release()
                throw error
            }
        } catch {
            await LogLine.flush()
            throw error
        }

        var limits = CoreEngine<App.State, App.Action, App.Environment>.Limits()
        limits.maximumPayloadLength = options.maximumFrameLength
        limits.handshakeTimeout = options.handshakeTimeout
        limits.inputBudget = options.inputBudget
        let loop: EventLoop
        do {
            loop = try EventLoop.make()
        } catch {
            journal.closeBlocking()
            binding.release()
            setup.lock.release()
            await LogLine.flush()
            throw CommandFailure(.rejected, "cannot start the core's event loop: \(error); raise the limit on open files ('ulimit -n')")
        }
        // From now on, an input that crashes the core is noted, for the next start to refuse.
        do {
            try CrashNote.install(setup.files)
        } catch {
            log("cannot keep a crash note (\(error)); an input that crashes this core will not be known at the next start")
        }
        loop.execute { CrashNote.prepareThread() }
        // Counted once what the core holds of its own is open.
        limits.maximumClients = DescriptorLimit.clientCapacity()
        let core = CoreEngine(
            state: recovered.state, revision: recovered.revision, ledger: recovered.ledger, timers: recovered.timers,
            journal: journal, reducer: App.reducer, environment: environment,
            limits: limits, trace: options.trace, admits: { App.admits($0) }, quarantine: quarantine, loop: loop, log: log,
            journalFailed: { [binding, lock = setup.lock] _ in
                // Nothing more may be acknowledged: stop, after removing what would make others
                // take this process for a live core.
                binding.release()
                lock.release()
                ProgramMain.end(JournalFailure.exitStatus)
            })
        notices.connect(core.notify)
        let files = setup.files
        await core.serveLookBack(LookBack(files: files) { revision, newest throws(LookBackFailure) in
            let found = try StateAtRevision<App>.state(at: revision, in: files, newest: newest)
            do {
                return (found.revision, try WireJSON.encode(found.state))
            } catch {
                throw LookBackFailure(.failed, "the state at revision \(revision) cannot be encoded: \(error)")
            }
        })
        for action in App.startup(for: await core.current.state) {
            await core.send(action)
        }
        // A stop signal, or the launcher that supervises us going away, ends the core the same
        // way: stop taking connections, write and sync what was applied (releasing its acks),
        // then say bye to everyone. The launcher is watched on the core's own loop, from
        // before it serves: once it serves, clients may take every descriptor left.
        let stopRequests = Chan<String>()
        let supervisor = SupervisorWatch.start(environment: environmentVariables, loop: loop) {
            // Our stdout and stderr were the launcher's log pipe, which went with it: the lines
            // that say how this core ends go to the log file itself.
            redirectOutput(to: stateDirectory + "/core.log")
            stopRequests.trySend("the launcher that supervises this core is gone")
        }
        do {
            try await core.listen(fd: binding.fd, path: binding.path)
        } catch {
            binding.release()
            setup.lock.release()
            throw CommandFailure(.rejected, "cannot watch \(path): \(error)")
        }
        let startRevision = await core.current.revision
        log("serving \(binding.path)\(binding.isInherited ? " (socket passed by the supervisor)" : "") at revision \(startRevision) (protocol \(ProtocolVersion.current), fsync \(options.fsync.rawValue), state in \(stateDirectory), core \(core.instanceID))")

        let signalWatcher = Task {
            for await signal in signals { stopRequests.trySend("received \(Signals.name(signal))") }
        }
        ReadinessNotification.send("READY=1\nMAINPID=\(getpid())\nSTATUS=serving at revision \(startRevision)", environment: environmentVariables)
        if let reason = await stopRequests.receive() {
            log("\(reason); shutting down")
        }
        await core.stop(reason: "the core is shutting down")
        signalWatcher.cancel()
        _ = supervisor
        await core.closeJournal()
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
