import Glibc
import Wire

/// The shell of any app: the scripting commands, the line shell and (when the app has one)
/// the full-screen interface, around the app's verbs and rendering. An app's `main` is one
/// call, ``main()``.
public enum ShellKit<App: ShellApp> {
    /// The whole program. Call it as `main`'s only statement: it blocks the signals the
    /// full-screen interface handles before any other thread exists, and never returns.
    public static func main() -> Never {
        let handled = App.fullScreen?.signals ?? []
        // First, while this is the only thread: the full-screen interface's signals wait for it.
        Signals.block(handled)
        signal(SIGPIPE, SIG_IGN)
        let parsed: (ShellOptions, ShellCommand)
        do {
            parsed = try ShellCommand.parse(Array(CommandLine.arguments.dropFirst()), program: App.program, verbSummary: VerbTable(verbs: App.verbs).summary)
        } catch {
            ProgramMain.fail(error, program: App.program)
        }
        let (options, command) = parsed
        guard command == .attach, AttachCommand<App>.isFullScreen else {
            // Every other command keeps the default actions: Ctrl-C ends it.
            Signals.unblock(handled)
            ProgramMain.run(program: App.program, receiving: []) { () throws(CommandFailure) in try await run(command, options: options).rawValue }
        }
        ProgramMain.run(program: App.program, receiving: handled) { () throws(CommandFailure) in try await run(command, options: options).rawValue }
    }

    /// Runs one command.
    /// - Parameters:
    ///   - command: what to do.
    ///   - options: the options every command takes.
    public static func run(_ command: ShellCommand, options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        switch command {
        case .help:
            await StandardStreams.out(ShellHelp.text(App.self) + "\n")
            return .success
        case .version:
            await StandardStreams.out("\(App.program) \(App.version) (protocol \(ProtocolVersion.current))\n")
            return .success
        case .attach:
            return try await AttachCommand<App>.run(options: options)
        case let .send(input):
            return try await SendCommand<App>.run(input, options: options)
        case let .state(json):
            return try await StateCommand<App>.run(json: json, options: options)
        case let .watch(format, count):
            return try await WatchCommand<App>.run(format: format, count: count, options: options)
        }
    }

    /// The exit status and the message (what happened, what to do) for a link to the core that
    /// failed or ended, as every command of the shell reports it.
    /// - Parameter error: how the link ended.
    public static func failure(_ error: LinkError) -> CommandFailure {
        CoreConnection<App>.failure(error)
    }

    /// The help text, as `--help` prints it.
    public static var helpText: String { ShellHelp.text(App.self) }
}
