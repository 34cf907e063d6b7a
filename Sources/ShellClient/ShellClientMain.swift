import ActorNode
import Glibc
import Wire

/// `shell-client`: attach to the core, or script it.
@main
enum ShellClientMain {
    static func main() {
        // First, while this is the only thread: the full-screen shell's signals wait for it.
        Signals.block(FullScreenShell.handledSignals)
        signal(SIGPIPE, SIG_IGN)
        let parsed: (GlobalOptions, ShellCommand)
        do {
            parsed = try ShellCommand.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            StandardStreams.fail(error, program: ShellCommand.program)
        }
        guard parsed.1 == .attach, FullScreenShell.applies else {
            // Every other command keeps the default actions: Ctrl-C ends it.
            Signals.unblock(FullScreenShell.handledSignals)
            ProgramMain.run(receiving: []) { await run(parsed.0, parsed.1) }
        }
        ProgramMain.run(receiving: FullScreenShell.handledSignals) { await run(parsed.0, parsed.1) }
    }

    private static func run(_ options: GlobalOptions, _ command: ShellCommand) async -> Int32 {
        let status: ExitStatus
        do {
            switch command {
            case .help:
                await StandardStreams.out(ShellCommand.helpText + "\n")
                status = .success
            case .version:
                await StandardStreams.out("shell-client \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
                status = .success
            case .attach:
                status = try await AttachCommand.run(options: options)
            case let .send(input):
                status = try await SendCommand.run(input, options: options)
            case let .state(json):
                status = try await StateCommand.run(json: json, options: options)
            case let .watch(json, count):
                status = try await WatchCommand.run(json: json, count: count, options: options)
            }
        } catch {
            StandardStreams.fail(error, program: ShellCommand.program)
        }
        return status.rawValue
    }
}
