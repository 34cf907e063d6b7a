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
        /// Print the state at a revision, from the state directory (`--at REV`).
        case at(UInt64)
        case help
        case version
    }

    package var mode = Mode.serve
    package var socket: String?
    package var stateDirectory: String?
    package var fsync = FsyncPolicy.always
    package var snapshotThreshold = 8 << 20
    /// `--keep-history`: what the state directory keeps beyond what recovery needs.
    package var keepHistory = HistoryRetention.standard
    package var maximumFrameLength = Frame.defaultMaximumPayloadLength
    /// `--max-buffered`: the engine's input budget (``CoreEngine/Limits/inputBudget``).
    package var inputBudget = 64 << 20
    package var handshakeTimeout = Duration.seconds(10)
    package var trace = false

    package init() {}

    /// Parses the arguments after the program's name, by the options of ``table``.
    /// - Parameters:
    ///   - arguments: the words of the command line.
    ///   - program: the program's name, for usage errors.
    package static func parse(_ arguments: [String], program: String) throws(CommandFailure) -> HostOptions {
        var options = HostOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        var modes: [Mode] = []
        while let token = cursor.next() {
            switch token {
            case let .option(name):
                guard let option = table.first(where: { $0.names.contains(name) }) else {
                    throw cursor.unknown(name)
                }
                switch option.effect {
                case let .set(set):
                    try set(&options, &cursor, name)
                case let .mode(mode):
                    modes.append(mode)
                case let .valueMode(read):
                    modes.append(try read(&cursor, name))
                case let .answer(mode):
                    options.mode = mode
                    return options
                }
            case let .operand(operand):
                throw cursor.unexpected(operand)
            }
        }
        guard modes.count <= 1 else {
            let names = table.filter(\.isMode).map { $0.names[0] }
            throw .usage("choose one of \(Wording.list(names, "and"))", program: program)
        }
        options.mode = modes.first ?? .serve
        return options
    }

    /// Every option a core takes, in the order `--help` lists them: what ``parse(_:program:)``
    /// reads and what ``help(program:summary:naming:)`` says, from one declaration each.
    static let table: [HostOption] = [
        HostOption("--socket", value: "PATH", help: { naming in [
            "the socket to serve (else \(naming.socketSearch));",
            "its directory is created 0700 and must not be open to others",
        ] }) { options, cursor, name throws(CommandFailure) in
            options.socket = try cursor.value(for: name)
        },
        HostOption("--state-dir", value: "DIR", help: { naming in [
            "where the journal and snapshots live (else \(naming.stateDirectorySearch)); one core per directory",
        ] }) { options, cursor, name throws(CommandFailure) in
            options.stateDirectory = try cursor.value(for: name)
        },
        HostOption("--fsync", value: "POLICY", usage: .listedShowing(FsyncPolicy.allCases.map(\.rawValue).joined(separator: "|")), help: [
            "when the journal is forced to disk, and so what an ack promises:",
            "  always  ack once on disk; concurrent clients share one fsync (default)",
            "  batch   sync at least every 100 ms: a machine crash loses <= 100 ms",
            "  never   leave it to the OS: a machine crash may lose more",
            "every policy writes before acking, so a crash of the core loses nothing",
        ]) { options, cursor, name throws(CommandFailure) in
            let value = try cursor.value(for: name)
            guard let policy = FsyncPolicy(rawValue: value) else {
                throw .usage("\(name) takes \(Wording.list(FsyncPolicy.allCases.map(\.rawValue), "or")), not '\(value)'", program: cursor.program)
            }
            options.fsync = policy
        },
        HostOption("--snapshot-every", value: "BYTES", help: [
            "take a snapshot and start a new journal file when the current one",
            "passes this size (default 8388608)",
        ]) { options, cursor, name throws(CommandFailure) in
            options.snapshotThreshold = try cursor.number(for: name, in: 1024 ... 1 << 40)
        },
        HostOption("--keep-history", value: "AGE|BYTES", help: [
            "how much older history (journal and snapshots recovery no longer",
            "needs) to keep for history, state --at and diff: files younger than",
            "AGE (30m, 12h, 7d, 2w) and, newest first, within BYTES (512MB, 2GB);",
            "both as AGE,BYTES; 0 keeps none (default \(HistoryRetention.standard))",
        ]) { options, cursor, name throws(CommandFailure) in
            let value = try cursor.value(for: name)
            guard let retention = HistoryRetention(value) else {
                throw .usage("\(name) takes an age (7d, 12h, 30m), a size (256MB, 1GB), both as 7d,256MB, or 0; not '\(PeerText.escaped(value))'", program: cursor.program)
            }
            options.keepHistory = retention
        },
        HostOption("--max-frame", value: "BYTES", help: [
            "the largest frame accepted from a client once it has said hello",
            "(default 16777216); before hello the limit is 65536",
        ]) { options, cursor, name throws(CommandFailure) in
            options.maximumFrameLength = try cursor.number(for: name, in: 1024 ... Frame.absoluteMaximumPayloadLength)
        },
        HostOption("--max-buffered", value: "BYTES", help: [
            "input from all clients the core holds before processing it (partial",
            "frames, frames of clients that do not read their answers): past 4",
            "times this (default 67108864) the clients holding the most are",
            "disconnected (error too_large)",
        ]) { options, cursor, name throws(CommandFailure) in
            options.inputBudget = try cursor.number(for: name, in: 1 << 20 ... 1 << 40)
        },
        HostOption("--handshake-timeout", value: "SECONDS", help: [
            "how long a new connection has to say hello (default 10)",
        ]) { options, cursor, name throws(CommandFailure) in
            options.handshakeTimeout = try cursor.seconds(for: name, in: 0.1 ... 3600)
        },
        HostOption("--trace", help: [
            "log every action, who sent it, and what it changed (old -> new)",
        ]) { options, _, _ in
            options.trace = true
        },
        HostOption("--check", usage: .alone(with: ["--state-dir"]), help: [
            "report what the state directory holds and whether a core would start",
            "on it (replaying the journal); exit 1 if not, or if it does not exist",
        ], effect: .mode(.check)),
        HostOption("--repair", usage: .alone(with: ["--state-dir"]), help: [
            "truncate a damaged journal at its last good record (the core must be",
            "stopped); what follows the damage is lost",
        ], effect: .mode(.repair)),
        HostOption("--at", value: "REV", usage: .alone(with: ["--state-dir"]), help: [
            "print the state at revision REV as one line of JSON, as 'state --json'",
            "prints it: the nearest snapshot at or before REV and the journal after",
            "it, replayed; for any revision the directory still holds (--check says",
            "which), the core running or not",
        ]) { (cursor: inout ArgumentCursor, name: String) throws(CommandFailure) -> HostOptions.Mode in
            .at(UInt64(try cursor.number(for: name, in: 0 ... Int.max)))
        },
        HostOption("--print-paths", usage: .unlisted, help: [
            "print the socket and the state directory this core would use, one a",
            "line, and exit (for launchers)",
        ], effect: .mode(.printPaths)),
        HostOption("-h", "--help", usage: .unlisted, help: ["show this help"], effect: .answer(.help)),
        HostOption("--version", usage: .unlisted, help: ["show the version"], effect: .answer(.version)),
    ]

    /// The `--help` of a core: its usage and its options from ``table``, then how it works.
    /// - Parameters:
    ///   - program: the program's name.
    ///   - summary: one line saying what it serves.
    ///   - naming: where its socket and state directory are by default.
    package static func help(program: String, summary: String, naming: AppNaming) -> String {
        // The options a core serves with, on as many lines as they need; then each one-shot
        // mode that has a usage line of its own.
        let usage = "Usage: \(program) "
        let margin = String(repeating: " ", count: "Usage: ".count)
        let indent = String(repeating: " ", count: usage.count)
        let listed = table.compactMap(\.listedUsage)
        var lines = Wording.wrap(listed, width: Wording.helpWidth - usage.count).enumerated().map { index, line in
            (index == 0 ? usage : indent) + line
        }
        for option in table {
            guard case let .alone(others) = option.usage else { continue }
            let with = others.compactMap { other in table.first { $0.names.contains(other) }?.bracketed }
            lines.append(margin + ([program, option.label] + with).joined(separator: " "))
        }
        return """
        \(program): \(summary)

        \(lines.joined(separator: "\n"))

        Options:
        \(table.flatMap { $0.helpRows(naming) }.joined(separator: "\n"))

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

/// One option of a core's command line, declared once: its names, its value, how the usage
/// shows it, its lines in `--help` and what giving it does. ``HostOptions/parse(_:program:)``
/// and ``HostOptions/help(program:summary:naming:)`` both read ``HostOptions/table``, so the
/// parser and the help cannot drift apart (as a shell's ``Verb`` carries its usage and summary
/// with its parser).
struct HostOption: Sendable {
    /// What giving the option does.
    enum Effect: Sendable {
        /// Sets a setting, reading the option's value from the cursor if it takes one; the
        /// closure is given the option's name, for its mistakes.
        case set(@Sendable (inout HostOptions, inout ArgumentCursor, _ name: String) throws(CommandFailure) -> Void)
        /// Chooses a one-shot mode instead of serving; at most one may be given.
        case mode(HostOptions.Mode)
        /// The same, for a mode that takes the option's value (read from the cursor).
        case valueMode(@Sendable (inout ArgumentCursor, _ name: String) throws(CommandFailure) -> HostOptions.Mode)
        /// Answers at once (help, version), whatever else the command line holds.
        case answer(HostOptions.Mode)
    }

    /// Where the usage lines show the option.
    enum Usage: Sendable {
        /// Among the options a core serves with: `[--socket PATH]`.
        case listed
        /// Among them, with its values spelled out: `[--fsync always|batch|never]`.
        case listedShowing(String)
        /// On a line of its own, with the options it takes: `--check [--state-dir DIR]`.
        case alone(with: [String])
        /// Only under Options.
        case unlisted
    }

    /// Its names, the usual one first: `--socket`; `-h`, `--help`.
    let names: [String]
    /// What its value is called (`PATH`), or nil when it takes none.
    let value: String?
    let usage: Usage
    /// Its help, for an app's naming: lines, each wrapped to the help's width when it is wider
    /// (those that hold the app's paths, whose length comes with its name); a line that starts
    /// with a space is kept as written (the policies under `--fsync`).
    let help: @Sendable (AppNaming) -> [String]
    let effect: Effect

    /// An option with a value, or a flag, that sets a setting.
    init(
        _ name: String, value: String? = nil, usage: Usage = .listed, help: [String],
        set: @escaping @Sendable (inout HostOptions, inout ArgumentCursor, _ name: String) throws(CommandFailure) -> Void
    ) {
        self.init(names: [name], value: value, usage: usage, help: { _ in help }, effect: .set(set))
    }

    /// An option whose help depends on the app's naming.
    init(
        _ name: String, value: String? = nil, usage: Usage = .listed, help: @escaping @Sendable (AppNaming) -> [String],
        set: @escaping @Sendable (inout HostOptions, inout ArgumentCursor, _ name: String) throws(CommandFailure) -> Void
    ) {
        self.init(names: [name], value: value, usage: usage, help: help, effect: .set(set))
    }

    /// An option that chooses a mode.
    init(_ names: String..., usage: Usage, help: [String], effect: Effect) {
        self.init(names: names, value: nil, usage: usage, help: { _ in help }, effect: effect)
    }

    /// An option that chooses a mode from its value.
    init(
        _ name: String, value: String, usage: Usage, help: [String],
        mode: @escaping @Sendable (inout ArgumentCursor, _ name: String) throws(CommandFailure) -> HostOptions.Mode
    ) {
        self.init(names: [name], value: value, usage: usage, help: { _ in help }, effect: .valueMode(mode))
    }

    private init(names: [String], value: String?, usage: Usage, help: @escaping @Sendable (AppNaming) -> [String], effect: Effect) {
        self.names = names
        self.value = value
        self.usage = usage
        self.help = help
        self.effect = effect
    }

    /// Whether it chooses a one-shot mode (`--check`, `--repair`, `--print-paths`).
    var isMode: Bool {
        switch effect {
        case .mode, .valueMode: true
        case .set, .answer: false
        }
    }

    /// How it is written: `--socket PATH`, `-h, --help`.
    var label: String {
        names.joined(separator: ", ") + (value.map { " " + $0 } ?? "")
    }

    /// `[--socket PATH]`.
    var bracketed: String { "[\(label)]" }

    /// How it reads among the options a core serves with, if it is one of them.
    var listedUsage: String? {
        switch usage {
        case .listed: bracketed
        case let .listedShowing(values): "[\(names[0]) \(values)]"
        case .alone, .unlisted: nil
        }
    }

    /// Its rows under Options: the label, then the help from column 21, beside the label when
    /// it leaves room (17 characters or fewer), else below it.
    func helpRows(_ naming: AppNaming) -> [String] {
        let column = 21
        let lines = help(naming).flatMap { line in
            line.hasPrefix(" ") ? [line] : Wording.wrap(line, width: Wording.helpWidth - column)
        }
        let indent = String(repeating: " ", count: column)
        let head = "  " + label
        guard head.count + 2 <= column, let first = lines.first else {
            return [head] + lines.map { indent + $0 }
        }
        return [head + String(repeating: " ", count: column - head.count) + first] + lines.dropFirst().map { indent + $0 }
    }
}
