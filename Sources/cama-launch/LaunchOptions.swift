import ActorNode

/// `cama-launch`'s command line.
struct LaunchOptions {
    enum Mode: Equatable {
        /// The core (unless one already serves the socket) and an attached shell in this terminal.
        case interactive
        /// The core only, supervised, in the foreground.
        case headless
        /// Like headless, in the background.
        case detach
        case stop
        case status
        case help
        case version
    }

    var mode = Mode.interactive
    var socket: String?
    var stateDirectory: String?
    var fsync: String?
    var timeout: Duration = .seconds(10)

    static let program = "cama-launch"

    static let help = """
    cama-launch: Root of a CAMA app. Starts the core (core-daemon) and a shell (shell-client),
    and restarts the core when it dies.

    Usage:
      cama-launch                start the core, unless one already serves the socket, and an
                                 interactive shell in this terminal; quitting that shell stops
                                 the core it started (the core logs to STATE_DIR/core.log)
      cama-launch --headless     the core only, supervised, in the foreground until SIGINT or
                                 SIGTERM; its log goes to stderr
      cama-launch --detach       like --headless, in the background; returns once the core
                                 accepts connections (log: STATE_DIR/launcher.log)
      cama-launch stop           stop the core serving the socket (and its launcher)
      cama-launch status         show the core serving the socket: pid, revision, shells

    Options:
      --socket PATH        the core's socket (else $CAMA_SOCKET, else
                           $XDG_RUNTIME_DIR/cama/core.sock, else /tmp/cama-$UID/core.sock)
      --state-dir DIR      where the core keeps its journal and snapshots, and where logs go
                           (else $CAMA_STATE_DIR, else $XDG_STATE_HOME/cama, else
                           ~/.local/state/cama; never the runtime directory)
      --fsync POLICY       the core's journal policy: always (default), batch or never; see
                           'core-daemon --help' for what each can lose
      --timeout SECONDS    how long to wait for the core to start, answer or stop (default 10)
      -h, --help           show this help
      --version            show the version

    core-daemon and shell-client are found beside cama-launch's own executable.
    A core that dies abnormally is restarted after 100 ms; one that exits cleanly (status 0,
    e.g. after 'cama-launch stop') is not.

    Exit status: 0 success · 1 refused (a core already serves the socket, the core cannot
    start) · 2 usage error · 3 no core answered or it timed out · 4 protocol error
    """

    static func parse(_ arguments: [String]) throws(CommandFailure) -> LaunchOptions {
        var options = LaunchOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        var modes: [Mode] = []
        while let token = cursor.next() {
            switch token {
            case .option("--headless"): modes.append(.headless)
            case .option("--detach"): modes.append(.detach)
            case .option("--socket"): options.socket = try cursor.value(for: "--socket")
            case .option("--state-dir"): options.stateDirectory = try cursor.value(for: "--state-dir")
            case .option("--fsync"):
                let value = try cursor.value(for: "--fsync")
                guard ["always", "batch", "never"].contains(value) else {
                    throw .usage("--fsync takes always, batch or never, not '\(value)'", program: program)
                }
                options.fsync = value
            case .option("--timeout"): options.timeout = try cursor.seconds(for: "--timeout", in: 0.1 ... 3600)
            case .option("-h"), .option("--help"): return options.with(.help)
            case .option("--version"): return options.with(.version)
            case let .option(other): throw cursor.unknown(other)
            case .operand("stop"): modes.append(.stop)
            case .operand("status"): modes.append(.status)
            case let .operand(other):
                throw .usage("unknown command '\(other)' (expected stop or status)", program: program)
            }
        }
        guard modes.count <= 1 else {
            throw .usage("choose one of --headless, --detach, stop and status", program: program)
        }
        options.mode = modes.first ?? .interactive
        return options
    }

    /// The options the launcher passes on to each core it starts.
    var coreArguments: [String] {
        var arguments: [String] = []
        if let stateDirectory { arguments += ["--state-dir", stateDirectory] }
        if let fsync { arguments += ["--fsync", fsync] }
        return arguments
    }

    private func with(_ mode: Mode) -> LaunchOptions {
        var copy = self
        copy.mode = mode
        return copy
    }
}
