import ActorNode
import Glibc
import Wire

/// `cama-launch`: Root. Starts the core and a shell, supervises the core.
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
            StandardStreams.fail(error, program: LaunchOptions.program)
        }
        guard [.interactive, .headless].contains(options.mode) else {
            // Only a supervising launcher handles signals; the other modes keep the defaults.
            Signals.unblock(Signals.stop)
            ProgramMain.run(receiving: []) { await run(options) }
        }
        ProgramMain.run(receiving: Signals.stop) { await run(options) }
    }

    private static func run(_ options: LaunchOptions) async -> Int32 {
        let program = LaunchOptions.program
        let log: @Sendable (String) -> Void = { LogLine.write(program, $0) }
        let status: Int32
        do throws(CommandFailure) {
            let socket = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
            if ![.help, .version].contains(options.mode) {
                do {
                    _ = try UnixSocket.address(socket)
                } catch {
                    throw CommandFailure.usage(error.description, program: program)
                }
            }
            switch options.mode {
            case .help:
                await StandardStreams.out(LaunchOptions.help + "\n")
                status = 0
            case .version:
                await StandardStreams.out("cama-launch \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
                status = 0
            case .interactive:
                status = try await Modes.interactive(socket: socket, options: options, log: log)
            case .headless:
                status = try await Modes.headless(socket: socket, options: options, log: log)
            case .detach:
                status = try await Modes.detach(socket: socket, options: options)
            case .stop:
                status = try await Modes.stop(socket: socket, options: options)
            case .status:
                status = try await Modes.status(socket: socket, options: options)
            }
        } catch {
            await LogLine.flush()
            StandardStreams.fail(error, program: program)
        }
        await LogLine.flush()
        return status
    }
}
