import Wire

/// Options every command of a shell takes.
package struct ShellOptions: Sendable, Equatable {
    /// `--socket PATH`.
    package var socket: String?
    /// `--timeout SECONDS`: how long to wait for the core (to be welcomed, for each answer, and
    /// to come back after a restart); nil when not given: 10 s, or 60 s for `attach`'s
    /// reconnections.
    package var timeoutOption: Duration?
    /// The app's own options of `attach` (``AttachOption``), by name, with their values.
    package var attach: [String: String]
    /// `--ssh [USER@]HOST`: the core is on that machine, reached through ssh.
    package var ssh: String?
    /// `--remote-command PROGRAM`: the app's shell on the `--ssh` host (default: this
    /// program's name, found on the host's PATH).
    package var remoteCommand: String?
    /// `bridge --read-only`: let through what reads the state, refuse actions.
    package var readOnly = false

    package init(socket: String? = nil, timeoutOption: Duration? = nil, attach: [String: String] = [:], ssh: String? = nil, remoteCommand: String? = nil) {
        self.socket = socket
        self.timeoutOption = timeoutOption
        self.attach = attach
        self.ssh = ssh
        self.remoteCommand = remoteCommand
    }

    /// The timeout to use for an answer.
    package var timeout: Duration { timeoutOption ?? .seconds(10) }
}

/// What `send` sends.
package enum SendInput: Sendable, Equatable {
    /// `send VERB ARGS...`
    case verb([String])
    /// `send --json '{"add":{"text":"x"}}'`
    case json(String)
    /// `send -`: one action per line from stdin.
    case standardInput
}

/// What each line of `watch` shows.
package enum WatchFormat: Sendable, Equatable {
    /// As the app renders a change.
    case text
    /// The whole state as JSON: `{...,"revision":R}`.
    case json
    /// What each change did, as a JSON Patch: `{"patch":[...],"revision":R}`.
    case patches
}

/// One parsed command line of a shell.
package enum ShellCommand: Sendable, Equatable {
    case attach
    case send(SendInput)
    /// `state [--at REV] [--json]`.
    case state(json: Bool, at: UInt64? = nil)
    /// `diff REV1 REV2 [--json]`: what changed between two revisions.
    case diff(from: UInt64, to: UInt64, json: Bool)
    /// `history [--from REV] [--to REV] [--last N] [--client NAME|ID] [--json] [--follow]`.
    case history(HistoryRequest, json: Bool)
    case watch(format: WatchFormat, count: Int?)
    case help
    case version
    /// `bridge`: stdin and stdout to and from the core's socket, for a client on another machine.
    case bridge

    static let names = ["attach", "send", "state", "watch", "history", "diff", "bridge", "help"]

    /// The largest revision a command takes: JSON numbers on the wire are 64-bit signed.
    static let largestRevision = UInt64(Int64.max)

    /// Parses the arguments after the program's name.
    /// - Parameters:
    ///   - arguments: the words of the command line.
    ///   - program: the program's name, for usage errors.
    ///   - verbSummary: the verbs, for the error of a `send` without one (made only then).
    ///   - attachOptions: the app's own options of `attach`, by name (`--name`).
    package static func parse(
        _ arguments: [String], program: String, verbSummary: @autoclosure () -> String, attachOptions: [String] = []
    ) throws(CommandFailure) -> (ShellOptions, ShellCommand) {
        var options = ShellOptions()
        var cursor = ArgumentCursor(arguments, program: program)
        var name: String?
        var json = false
        var jsonAction: String?
        var count: Int?
        var patches = false
        var operands: [String] = []
        var wantsHelp = false
        var wantsVersion = false
        var at: UInt64?
        var history = HistoryRequest()

        while let token = cursor.next() {
            switch token {
            case .option("--socket"):
                options.socket = try cursor.value(for: "--socket")
            case .option("--timeout"):
                options.timeoutOption = try cursor.seconds(for: "--timeout", in: 0.1 ... 86_400)
            case .option("--ssh") where name != "bridge":
                options.ssh = try cursor.value(for: "--ssh")
                if let problem = SSHRoute.problem(host: options.ssh!) { throw .usage(problem, program: program) }
            case .option("--remote-command") where name != "bridge":
                options.remoteCommand = try cursor.value(for: "--remote-command")
            case .option("--read-only"):
                options.readOnly = true
            case .option("-h"), .option("--help"):
                wantsHelp = true
            case .option("--version"):
                wantsVersion = true
            case .option("--json") where name == "send":
                jsonAction = try cursor.value(for: "--json")
            case .option("--json") where name == "state" || name == "watch" || name == "history" || name == "diff":
                json = true
            case .option("--at") where name == "state":
                at = try cursor.number(for: "--at", in: 0 ... ShellCommand.largestRevision)
            case .option("--from") where name == "history":
                history.from = try cursor.number(for: "--from", in: 0 ... ShellCommand.largestRevision)
            case .option("--to") where name == "history":
                history.to = try cursor.number(for: "--to", in: 0 ... ShellCommand.largestRevision)
            case .option("--last") where name == "history":
                history.last = try cursor.number(for: "--last", in: 1 ... Int.max)
            case .option("--client") where name == "history":
                history.client = try cursor.value(for: "--client")
            case .option("--follow") where name == "history":
                history.follow = true
            case .option("--patches") where name == "watch":
                patches = true
            case .option("--count") where name == "watch":
                count = try cursor.number(for: "--count", in: 1 ... Int.max)
            case let .option(option) where attachOptions.contains(option) && (name == nil || name == "attach"):
                options.attach[option] = try cursor.value(for: option)
            case let .option(option) where name == "send" && !operands.isEmpty:
                // After the verb, anything dash-like that is not one of our options is text
                // ("send add -5 degrees").
                operands.append(cursor.currentToken ?? option)
            case let .option(option):
                if name == nil, ["--json", "--count", "--patches", "--at", "--from", "--to", "--last", "--client", "--follow"].contains(option) {
                    throw .usage("\(option) belongs after a command (e.g. '\(program) state \(option)')", program: program)
                }
                throw cursor.unknown(option)
            case let .operand(operand):
                if name == nil {
                    guard names.contains(operand) else {
                        throw .usage("unknown command '\(PeerText.escaped(operand))' (expected attach, send, state, watch, history, diff or bridge)", program: program)
                    }
                    name = operand
                } else if name == "send" || (name == "diff" && operands.count < 2) {
                    operands.append(operand)
                } else {
                    throw cursor.unexpected(operand)
                }
            }
        }

        if wantsHelp || name == "help" { return (options, .help) }
        if options.readOnly, name != "bridge" {
            throw .usage("--read-only belongs to bridge (the far end of --ssh)", program: program)
        }
        if options.remoteCommand != nil, options.ssh == nil, name != "bridge" {
            throw .usage("--remote-command goes with --ssh HOST", program: program)
        }
        if wantsVersion { return (options, .version) }
        switch name {
        case nil, "attach"?:
            return (options, .attach)
        case "state"?:
            return (options, .state(json: json, at: at))
        case "history"?:
            if let from = history.from, let to = history.to, from > to {
                throw .usage("history --from \(from) comes after --to \(to)", program: program)
            }
            return (options, .history(history, json: json))
        case "diff"?:
            guard operands.count == 2 else {
                throw .usage("diff needs two revisions: '\(program) diff REV1 REV2'", program: program)
            }
            let revisions = operands.map { UInt64($0).flatMap { $0 <= largestRevision ? $0 : nil } }
            guard let from = revisions[0], let to = revisions[1] else {
                let bad = revisions[0] == nil ? operands[0] : operands[1]
                throw .usage("diff takes revisions, whole numbers from 0 to \(largestRevision) (found '\(PeerText.escaped(bad))')", program: program)
            }
            return (options, .diff(from: from, to: to, json: json))
        case "bridge"?:
            if options.ssh != nil || options.remoteCommand != nil {
                throw .usage("bridge is the far end of --ssh; it takes --socket, --timeout and --read-only", program: program)
            }
            return (options, .bridge)
        case "watch"?:
            if json, patches {
                throw .usage("watch takes --json or --patches, not both", program: program)
            }
            return (options, .watch(format: patches ? .patches : json ? .json : .text, count: count))
        default:
            return (options, .send(try sendInput(jsonAction: jsonAction, operands: operands, program: program, verbSummary: verbSummary)))
        }
    }

    private static func sendInput(jsonAction: String?, operands: [String], program: String, verbSummary: () -> String) throws(CommandFailure) -> SendInput {
        if let jsonAction {
            guard operands.isEmpty else {
                throw .usage("send --json takes one action and nothing else (found '\(PeerText.escaped(operands[0]))')", program: program)
            }
            return .json(jsonAction)
        }
        if operands == ["-"] { return .standardInput }
        guard !operands.isEmpty else {
            throw .usage("send needs an action: a verb (\(verbSummary())), --json JSON, or - to read actions from stdin", program: program)
        }
        if operands.first == "-" {
            throw .usage("send - reads actions from stdin and takes no other arguments", program: program)
        }
        return .verb(operands)
    }
}

/// The `--help` of a shell, put together from its description.
enum ShellHelp {
    static func text<App: ShellApp>(_ app: App.Type) -> String {
        let program = App.program
        let pad = { (text: String, width: Int) in text + String(repeating: " ", count: max(1, width - text.count)) }
        var lines = ["\(program): \(App.summary)", "", "Usage:"]
        let attach = App.fullScreen == nil
            ? ["an interactive shell: type verbs, see every change", "made by anyone"]
            : ["an interactive shell: full screen on a terminal", "(? shows its keys), else line mode (type verbs);", "shows every change made by anyone"]
        let attachOptions = App.fullScreen?.options ?? []
        let commands: [(String, [String])] = [
            (([program, "[attach]"] + attachOptions.map { "[\($0.name) \($0.value)]" }).joined(separator: " "), attach),
            ("\(program) send VERB [ARGS...]", ["send one action and wait until it is applied"]),
            ("\(program) send --json JSON", ["send one action written as JSON"]),
            ("\(program) send -", ["send one action per line from stdin (verbs or JSON)"]),
            ("\(program) state [--json]", ["print the current state"]),
            ("\(program) state --at REV [--json]", ["print the state as it was at revision REV"]),
            ("\(program) diff REV1 REV2 [--json]", ["what changed from REV1 to REV2: one line per", "path, or --json: the JSON Patch"]),
            ("\(program) history [--from REV] [--to REV]", ["one line per applied action: revision, time,", "who sent it, the action; also --last N,", "--client NAME|ID, --json, --follow"]),
            ("\(program) watch [--json] [--count N]", ["print the state now and after every change;", "stop after N lines"]),
            ("\(program) watch --patches [--count N]", ["print each change as a JSON Patch, one line", "each (the first replaces the whole state)"]),
            ("\(program) bridge [--read-only]", ["copy stdin and stdout to and from the core's", "socket: the far end of --ssh; --read-only", "lets the state through and refuses actions"]),
        ]
        for (usage, explanation) in commands {
            if usage.count > 37 {
                lines.append("  " + usage)
                lines += explanation.map { String(repeating: " ", count: 41) + $0 }
            } else {
                lines.append("  " + pad(usage, 39) + explanation[0])
                lines += explanation.dropFirst().map { String(repeating: " ", count: 41) + $0 }
            }
        }
        lines += ["", "Options may come before or after the command and its words; put -- before text that",
                  "starts with the name of an option (after --, --socket is a word, not an option).", "", "Verbs:"]
        for form in App.verbs.flatMap(\.forms) {
            // The example in its column, under a summary too long to share the line with it.
            let example = form.example.map {
                form.summary.count > 30 ? form.summary + "\n" + String(repeating: " ", count: 56) + $0 : pad(form.summary, 32) + $0
            } ?? form.summary
            if form.usage.count > 21 {
                lines.append("  " + form.usage)
                lines.append(String(repeating: " ", count: 24) + example)
            } else {
                lines.append("  " + pad(form.usage, 22) + example)
            }
        }
        if !App.jsonExamples.isEmpty {
            lines += ["", "JSON actions:"] + App.jsonExamples.map { "  " + $0 }
        }
        lines += [
            "",
            "--json output is one object per line: the whole state plus its revision (a key",
            "\"revision\" beside the state's own); a watcher slower than the core skips to the",
            "newest state. watch --patches prints {\"patch\":[...],\"revision\":R} per line, each",
            "change as an RFC 6902 JSON Patch of the state's JSON, in order; apply each to what",
            "the ones before made. The first line, and the one after a reconnection or after the",
            "watcher fell far behind, replaces the whole state.",
            "",
            "Options:",
        ]
        // The socket's search order, as long as the app's name makes it, wrapped.
        let socket = Wording.wrap("the core's socket (else \(App.naming.socketSearch))", width: Wording.helpWidth - 22)
        lines += ["  " + pad("--socket PATH", 20) + socket[0]] + socket.dropFirst().map { String(repeating: " ", count: 22) + $0 }
        let remote: [(String, String)] = [
            ("--ssh [USER@]HOST", "the core is on HOST: reach it through ssh ($CAMA_SSH, else ssh), which runs '\(program) bridge' there; one ssh connection is shared by the commands of a minute (see docs/REMOTE.md)"),
            ("--remote-command PATH", "with --ssh: the shell on HOST (default: \(program), on HOST's PATH)"),
        ]
        for (label, text) in remote {
            let help = Wording.wrap(text, width: Wording.helpWidth - 22)
            lines += label.count > 19
                ? ["  " + label] + help.map { String(repeating: " ", count: 22) + $0 }
                : ["  " + pad(label, 20) + help[0]] + help.dropFirst().map { String(repeating: " ", count: 22) + $0 }
        }
        for option in attachOptions {
            let help = Wording.wrap(option.help, width: Wording.helpWidth - 22)
            lines += ["  " + pad("\(option.name) \(option.value)", 20) + help[0]] + help.dropFirst().map { String(repeating: " ", count: 22) + $0 }
        }
        lines += [
            "  --timeout SECONDS   how long to wait for the core to answer, or to come back when it",
            "                      restarts (default 10; attach waits 60 for a restart)",
            "  -h, --help          show this help",
            "  --version           show the version",
            "",
            "When the core restarts, or an --ssh connection drops, attach and watch reconnect and",
            "start again from the state the core has (attach says so on screen, watch on stderr),",
            "and send sends its action again with the same client id and sequence number, so it",
            "is applied once.",
        ]
        if !App.helpNotes.isEmpty { lines += ["", App.helpNotes] }
        lines += [
            "",
            "Exit status: 0 success · 1 action rejected · 2 usage error · 3 core unreachable or",
            "timed out · 4 protocol or version error",
        ]
        return lines.joined(separator: "\n")
    }
}
