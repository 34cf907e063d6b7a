import Wire

/// The command line every core takes, whatever its app.
package struct HostOptions: Sendable, Equatable {
    /// What the command does.
    package enum Mode: Sendable, Equatable {
        /// Serve until a stop signal.
        case serve
        /// Report on the state directory.
        case check
        /// Cut a damaged journal back to its last good record.
        case repair
        /// Print where the socket and state directory are, for a launcher.
        case printPaths
        case help
        case version
    }

    package var mode = Mode.serve
    package var socket: String?
    package var stateDirectory: String?
    package var fsync = FsyncPolicy.always
    package var snapshotThreshold = 8 << 20
    package var maximumFrameLength = Frame.defaultMaximumPayloadLength
    /// `--max-buffered`: the engine's input budget (``CoreEngine/Limits/inputBudget``).
    package var inputBudget = 64 << 20
    package var handshakeTimeout = Duration.seconds(10)
    package var trace = false

    package init() {}

    /// Parses the arguments after the program's name.
    /// - Parameters:
    ///   - arguments: the words of the command line.
    ///   - program: the program's name, for usage errors.
    package static func parse(_ arguments: [String], program: String) throws(CommandFailure) -> HostOptions {
        var options = HostOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        var modes: [Mode] = []
        while let token = cursor.next() {
            switch token {
            case .option("--socket"):
                options.socket = try cursor.value(for: "--socket")
            case .option("--state-dir"):
                options.stateDirectory = try cursor.value(for: "--state-dir")
            case .option("--fsync"):
                let value = try cursor.value(for: "--fsync")
                guard let policy = FsyncPolicy(rawValue: value) else {
                    throw .usage("--fsync takes always, batch or never, not '\(value)'", program: program)
                }
                options.fsync = policy
            case .option("--snapshot-every"):
                options.snapshotThreshold = try cursor.number(for: "--snapshot-every", in: 1024 ... 1 << 40)
            case .option("--max-frame"):
                options.maximumFrameLength = try cursor.number(for: "--max-frame", in: 1024 ... Frame.absoluteMaximumPayloadLength)
            case .option("--max-buffered"):
                options.inputBudget = try cursor.number(for: "--max-buffered", in: 1 << 20 ... 1 << 40)
            case .option("--handshake-timeout"):
                options.handshakeTimeout = try cursor.seconds(for: "--handshake-timeout", in: 0.1 ... 3600)
            case .option("--trace"):
                options.trace = true
            case .option("--check"):
                modes.append(.check)
            case .option("--repair"):
                modes.append(.repair)
            case .option("--print-paths"):
                modes.append(.printPaths)
            case .option("-h"), .option("--help"):
                options.mode = .help
                return options
            case .option("--version"):
                options.mode = .version
                return options
            case let .option(other):
                throw cursor.unknown(other)
            case let .operand(operand):
                throw cursor.unexpected(operand)
            }
        }
        guard modes.count <= 1 else {
            throw .usage("choose one of --check, --repair and --print-paths", program: program)
        }
        options.mode = modes.first ?? .serve
        return options
    }

    /// The `--help` of a core.
    /// - Parameters:
    ///   - program: the program's name.
    ///   - summary: one line saying what it serves.
    ///   - naming: where its socket and state directory are by default.
    package static func help(program: String, summary: String, naming: AppNaming) -> String {
        """
        \(program): \(summary)

        Usage: \(program) [--socket PATH] [--state-dir DIR] [--fsync always|batch|never]
               \(String(repeating: " ", count: program.count)) [--snapshot-every BYTES] [--max-frame BYTES] [--max-buffered BYTES]
               \(String(repeating: " ", count: program.count)) [--handshake-timeout SECONDS] [--trace]
               \(program) --check [--state-dir DIR]
               \(program) --repair [--state-dir DIR]

        Options:
          --socket PATH      the socket to serve (else $\(naming.socketVariable), else
                             $XDG_RUNTIME_DIR/\(naming.name)/core.sock, else /tmp/\(naming.name)-$UID/core.sock);
                             its directory is created 0700 and must not be open to others
          --state-dir DIR    where the journal and snapshots live (else $\(naming.stateDirectoryVariable), else
                             $XDG_STATE_HOME/\(naming.name), else ~/.local/state/\(naming.name)); one core per directory
          --fsync POLICY     when the journal is forced to disk, and so what an ack promises:
                               always  ack once on disk; concurrent clients share one fsync (default)
                               batch   sync at least every 100 ms: a machine crash loses <= 100 ms
                               never   leave it to the OS: a machine crash may lose more
                             every policy writes before acking, so a crash of the core loses nothing
          --snapshot-every BYTES
                             take a snapshot and start a new journal file when the current one
                             passes this size (default 8388608)
          --max-frame BYTES  the largest frame accepted from a client once it has said hello
                             (default 16777216); before hello the limit is 65536
          --max-buffered BYTES
                             input from all clients the core holds before processing it (partial
                             frames, frames of clients that do not read their answers): past 4
                             times this (default 67108864) the clients holding the most are
                             disconnected (error too_large)
          --handshake-timeout SECONDS
                             how long a new connection has to say hello (default 10)
          --trace            log every action, who sent it, and what it changed (old -> new)
          --check            report what the state directory holds and whether a core would start
                             on it (replaying the journal); exit 1 if not, or if it does not exist
          --repair           truncate a damaged journal at its last good record (the core must be
                             stopped); what follows the damage is lost
          --print-paths      print the socket and the state directory this core would use, one a
                             line, and exit (for launchers)
          -h, --help         show this help
          --version          show the version

        At start the core loads the newest snapshot and replays the journal after it (running no
        effects), so the state and its revision continue where they were; a record cut short by a
        crash is dropped with a log line. It runs in the foreground until SIGINT, SIGTERM or SIGHUP,
        then flushes the journal, says bye to every client and removes its socket. Usually
        cama-launch starts it; see 'cama-launch --help'.

        Given a listening socket by a supervisor (systemd's socket activation: LISTEN_FDS=1 and
        LISTEN_PID set to its pid, the socket on descriptor 3), it serves that socket instead of
        binding --socket, and leaves it in place when it stops; with NOTIFY_SOCKET set it reports
        READY=1 there once it serves. 'systemd-socket-activate -l PATH \(program)' runs it so.

        Exit status: 0 stopped cleanly (or --check found the state sound) · 1 refused to start
        (socket or state directory in use or unsafe, journal corrupt) · 2 usage error · 70 the
        journal could not be written (a full disk, say): stopped before acknowledging anything more
        """
    }
}
