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
    /// `--core PATH`: the app's core (default `core-daemon`).
    var core: String?
    /// `--shell PATH`: the app's shell (default `shell-client`).
    var shell: String?
    var socket: String?
    var stateDirectory: String?
    var fsync: String?
    var timeout: Duration = .seconds(10)
    /// How long a core has to stop after SIGTERM before it is killed.
    var grace: Duration = .seconds(5)
    var restartPolicy = RestartPolicy()
    /// `--ssh [USER@]HOST`: the core is on that machine; a shell here attaches to it.
    var ssh: String?
    /// `--remote-command PATH`: the app's shell on the `--ssh` host (its cama-launch is looked
    /// for beside it).
    var remoteCommand: String?

    static let program = "cama-launch"

    /// Where the default core, core-daemon, puts its socket and state directory (its
    /// `AppNaming`), for the help.
    private static let defaultNaming = AppNaming("cama")

    /// An option's rows in the help: its label, then its text from column 23, wrapped.
    private static func optionRows(_ label: String, _ text: String) -> String {
        let lines = Wording.wrap(text, width: Wording.helpWidth - 23)
        let first = "  " + label + String(repeating: " ", count: 21 - label.count) + lines[0]
        return ([first] + lines.dropFirst().map { String(repeating: " ", count: 23) + $0 }).joined(separator: "\n")
    }

    static let help = """
    cama-launch: Root of a CAMA app. Starts its core (core-daemon) and a shell (shell-client),
    and restarts the core when it dies. --core and --shell choose another app's.

    Usage:
      cama-launch                start the core, unless one already serves the socket, and a
                                 shell in this terminal (the to-do shell is full screen: ?
                                 shows its keys, q quits); quitting that shell stops the core
                                 it started (the core logs to STATE_DIR/core.log)
      cama-launch --headless     the core only, supervised, in the foreground until SIGINT,
                                 SIGTERM or SIGHUP; the log is echoed to stderr
      cama-launch --detach       like --headless, in the background; returns once the core
                                 serves
      cama-launch stop           stop the core serving the socket (and its launcher)
      cama-launch status         show the launcher and the core: pids, uptime, restarts,
                                 revision, attached shells
      cama-launch --ssh [USER@]HOST
                                 a shell here, attached through ssh to the core on HOST,
                                 started there ('cama-launch --detach' on HOST) unless one
                                 serves; quitting the shell leaves that core running

    Options:
      --core PATH          the app's core (default: core-daemon); a name without a slash is
                           looked for beside cama-launch, then in $PATH
      --shell PATH         the app's shell (default: shell-client), found the same way
    \(optionRows("--socket PATH", "the core's socket (else where the core puts it by default: for core-daemon \(defaultNaming.socketSearch); 'CORE --print-paths' says)"))
    \(optionRows("--state-dir DIR", "where the core keeps its journal and snapshots, and where logs go (else the core's default: for core-daemon \(defaultNaming.stateDirectorySearch); never the runtime directory)"))
      --fsync POLICY       the core's journal policy: always (default), batch or never; see
                           'core-daemon --help' for what each can lose
      --timeout SECONDS    how long to wait for the core to be ready, answer or stop
                           (default 10)
      --grace SECONDS      how long a core has to stop after SIGTERM before it is killed
                           (default 5)
      --remote-command PATH
                           with --ssh: the shell on HOST (default: the --shell name, on
                           HOST's PATH); HOST's cama-launch is looked for beside it
                           (ssh and its options come from $CAMA_SSH, else ssh; see
                           docs/REMOTE.md)
      --max-restarts N     give up when the core needs more than N restarts ...
      --restart-window S   ... within S seconds (defaults 5 and 30)
      -h, --help           show this help
      --version            show the version

    The launcher owns the socket: it binds it once and hands it to each core it starts
    (systemd's socket activation: LISTEN_FDS, descriptor 3), so clients that connect while a
    core restarts wait in the backlog. It waits for each core's READY=1 (NOTIFY_SOCKET). A core
    that dies abnormally is restarted after 100 ms, doubling up to 5 s (back to 100 ms once a
    core has run for 10 s); one that exits cleanly (status 0) is not. The cores' output goes to
    STATE_DIR/core.log (rotated at 1 MiB, two old files kept). If the launcher dies, even by
    SIGKILL, its core notices at once and stops.
    The core and the shell are found beside cama-launch's own executable (or in $PATH); any
    core built with the CAMA host works (cama-launch --core chat-core --shell chat-shell).

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
            case .option("--core"): options.core = try cursor.value(for: "--core")
            case .option("--shell"): options.shell = try cursor.value(for: "--shell")
            case .option("--socket"): options.socket = try cursor.value(for: "--socket")
            case .option("--state-dir"): options.stateDirectory = try cursor.value(for: "--state-dir")
            case .option("--fsync"):
                let value = try cursor.value(for: "--fsync")
                guard ["always", "batch", "never"].contains(value) else {
                    throw .usage("--fsync takes always, batch or never, not '\(value)'", program: program)
                }
                options.fsync = value
            case .option("--timeout"): options.timeout = try cursor.seconds(for: "--timeout", in: 0.1 ... 3600)
            case .option("--grace"): options.grace = try cursor.seconds(for: "--grace", in: 0 ... 3600)
            case .option("--max-restarts"): options.restartPolicy.maximumRestarts = try cursor.number(for: "--max-restarts", in: 0 ... 1000)
            case .option("--restart-window"): options.restartPolicy.window = try cursor.seconds(for: "--restart-window", in: 1 ... 86_400)
            case .option("--ssh"):
                let host = try cursor.value(for: "--ssh")
                if let problem = SSHRoute.problem(host: host) { throw .usage(problem, program: program) }
                options.ssh = host
            case .option("--remote-command"): options.remoteCommand = try cursor.value(for: "--remote-command")
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
        if options.ssh != nil, options.mode != .interactive {
            throw .usage("--ssh attaches a shell here to the core on HOST; run --headless, --detach, stop and status on HOST itself (ssh HOST cama-launch status)", program: program)
        }
        if options.remoteCommand != nil, options.ssh == nil {
            throw .usage("--remote-command goes with --ssh HOST", program: program)
        }
        return options
    }

    /// The options a detached launcher is started with (besides its socket and state directory).
    var passedOn: [String] {
        var arguments = ["--timeout", "\(timeout.seconds)", "--grace", "\(grace.seconds)",
                         "--max-restarts", "\(restartPolicy.maximumRestarts)", "--restart-window", "\(restartPolicy.window.seconds)"]
        if let fsync { arguments += ["--fsync", fsync] }
        if let core { arguments += ["--core", core] }
        if let shell { arguments += ["--shell", shell] }
        return arguments
    }

    private func with(_ mode: Mode) -> LaunchOptions {
        var copy = self
        copy.mode = mode
        return copy
    }
}
