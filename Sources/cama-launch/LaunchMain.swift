import ActorNode
import Glibc
import Wire

/// `cama-launch`: Root. Starts an app's core and a shell, supervises the core.
@main
enum LaunchMain {
    static func main() {
        // First, while this is the only thread: a stop signal from now on waits for us.
        Signals.block(Signals.stop)
        signal(SIGPIPE, SIG_IGN)
        let options: LaunchOptions
        do {
            options = try LaunchOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            exit(ProgramMain.report(error, program: LaunchOptions.program))
        }
        guard [.interactive, .headless].contains(options.mode) else {
            // Only a supervising launcher handles signals; the other modes keep the defaults.
            Signals.unblock(Signals.stop)
            exit(ProgramMain.run(program: LaunchOptions.program, receiving: []) { () throws(CommandFailure) in try await run(options) })
        }
        exit(ProgramMain.run(program: LaunchOptions.program, receiving: Signals.stop) { () throws(CommandFailure) in try await run(options) })
    }

    private static func run(_ options: LaunchOptions) async throws(CommandFailure) -> Int32 {
        let log: @Sendable (String) -> Void = { LogLine.write(LaunchOptions.program, $0) }
        switch options.mode {
        case .help:
            await StandardStreams.out(LaunchOptions.help + "\n")
            return 0
        case .version:
            await StandardStreams.out("cama-launch \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
            return 0
        default:
            break
        }
        if let host = options.ssh {
            return try await Modes.remote(host, options: options)
        }
        let target = try await LaunchTarget.resolve(options)
        switch options.mode {
        case .interactive:
            return try await Modes.interactive(target, options: options, log: log)
        case .headless:
            return try await Modes.headless(target, options: options, log: log)
        case .detach:
            return try await Modes.detach(target, options: options)
        case .stop:
            return try await Modes.stop(target, options: options)
        case .status:
            return try await Modes.status(target, options: options)
        case .help, .version:
            return 0
        }
    }
}
