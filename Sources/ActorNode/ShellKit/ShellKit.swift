import Glibc
import Wire

/// The shell of any app: the scripting commands, the line shell and (when the app has one)
/// the full-screen interface, around the app's verbs and rendering. An app's `main` is one
/// line: it ends the process with the status ``main()`` returns (see ``ShellApp``).
public enum ShellKit<App: ShellApp> {
    /// The whole program. Call it from `main`, which ends the process with what it returns:
    /// it blocks the signals the full-screen interface handles before any other thread exists,
    /// runs `send` (of one action), `state` and `watch` on the main thread alone, and returns
    /// the exit status.
    public static func main() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Parsing starts no thread, so what follows still runs while this is the only one.
        let parsed: (ShellOptions, ShellCommand)
        do {
            parsed = try ShellCommand.parse(
                Array(CommandLine.arguments.dropFirst()), program: App.program, verbSummary: VerbTable(verbs: App.verbs).summary,
                attachOptions: App.fullScreen?.options.map(\.name) ?? [])
        } catch {
            return ProgramMain.report(error, program: App.program)
        }
        let (options, command) = parsed
        if let blocking = blocking(command) {
            // One action, the state, or watching it: on this thread alone, nothing started around it, and
            // every signal keeps its default action (Ctrl-C ends it).
            return ProgramMain.runHere(program: App.program) { () throws(CommandFailure) in
                let (status, output) = try blocking(options)
                StandardStreams.writeNow(1, output)
                return status.rawValue
            }
        }
        let handled = App.fullScreen?.signals ?? []
        // Before any other thread exists: the full-screen interface's signals wait for it.
        Signals.block(handled)
        guard command == .attach, AttachCommand<App>.isFullScreen, let fullScreen = App.fullScreen else {
            // The line shell editing lines on a terminal takes the stop signals, to give the
            // terminal back; every other command keeps the default actions: Ctrl-C ends it.
            let receiving = command == .attach ? AttachCommand<App>.lineModeSignals : []
            Signals.unblock(handled.filter { !receiving.contains($0) })
            Signals.block(receiving)
            return ProgramMain.run(program: App.program, receiving: receiving) { () throws(CommandFailure) in try await run(command, options: options).rawValue }
        }
        // The full-screen interface: the shell's one loop, on this thread, taking the signals.
        return ProgramMain.runHere(program: App.program) { () throws(CommandFailure) in
            try AttachCommand<App>.runFullScreen(fullScreen, options: options).rawValue
        }
    }

    /// Runs one command.
    /// - Parameters:
    ///   - command: what to do.
    ///   - options: the options every command takes.
    package static func run(_ command: ShellCommand, options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        switch command {
        case .help:
            await StandardStreams.out(ShellHelp.text(App.self) + "\n")
            return .success
        case .version:
            await StandardStreams.out("\(App.program) \(App.version) (protocol \(ProtocolVersion.current))\n")
            return .success
        case .attach:
            return try await AttachCommand<App>.run(options: options)
        case .send(.standardInput):
            return try await SendCommand<App>.lines(options: options)
        case .send, .state, .diff, .history, .watch, .bridge:
            // They block while they wait: on a thread of their own, off Swift's pool.
            guard let blocking = blocking(command) else { preconditionFailure("\(command) is one-shot") }
            let result = await SystemThread.run(name: "cama-oneshot") { Result { () throws(CommandFailure) in try blocking(options) } }
            let (status, output) = try result.get()
            if !output.isEmpty { await StandardStreams.out(String(decoding: output, as: UTF8.self)) }
            return status
        }
    }

    /// The commands that do their work on the calling thread with blocking waits (one action,
    /// the state, watching it: see ``BlockingClient``), as a function from the options to the exit status and
    /// what to print on stdout; nil for the others.
    static func blocking(_ command: ShellCommand) -> (@Sendable (ShellOptions) throws(CommandFailure) -> (ExitStatus, [UInt8]))? {
        switch command {
        case .send(.standardInput):
            return nil
        case let .send(.verb(words)):
            return { options throws(CommandFailure) in (try SendCommand<App>.one({ verbs throws(VerbMistake) in try verbs.parse(words) }, options: options), []) }
        case let .send(.json(text)):
            return { options throws(CommandFailure) in (try SendCommand<App>.one({ verbs throws(VerbMistake) in try verbs.parseJSON(text) }, options: options), []) }
        case let .state(json, at):
            return { options throws(CommandFailure) in (.success, try StateCommand<App>.run(json: json, at: at, options: options)) }
        case let .diff(from, to, json):
            return { options throws(CommandFailure) in (.success, try DiffCommand<App>.run(from: from, to: to, json: json, options: options)) }
        case let .history(request, json):
            // It prints as it goes.
            return { options throws(CommandFailure) in (try HistoryCommand<App>.run(request, json: json, options: options), []) }
        case let .watch(format, count):
            // It prints as it goes.
            return { options throws(CommandFailure) in (try WatchCommand<App>.run(format: format, count: count, options: options), []) }
        case .bridge:
            return { options throws(CommandFailure) in (try BridgeCommand<App>.run(options: options), []) }
        case .attach, .help, .version:
            return nil
        }
    }

    /// The exit status and the message (what happened, what to do) for a link to the core that
    /// failed or ended, as every command of the shell reports it.
    /// - Parameter error: how the link ended.
    package static func failure(_ error: LinkError) -> CommandFailure {
        CoreConnection<App>.failure(error)
    }

    /// The help text, as `--help` prints it.
    package static var helpText: String { ShellHelp.text(App.self) }
}
