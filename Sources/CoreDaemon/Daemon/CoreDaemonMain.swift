import ActorNode
import Glibc
import Wire

/// `core-daemon`: binds the socket, serves the to-do core until a stop signal, cleans up.
@main
enum CoreDaemonMain {
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        let program = DaemonOptions.program
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            StandardStreams.fail(error, program: program)
        }
        if options.showHelp {
            await StandardStreams.out(DaemonOptions.help + "\n")
            return
        }
        if options.showVersion {
            await StandardStreams.out("core-daemon \(CAMAVersion.current) (protocol \(ProtocolVersion.current))\n")
            return
        }
        let log: @Sendable (String) -> Void = { LogLine.write(program, $0) }
        let path = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
        // Catch stop signals before the socket exists, so none can kill us with it left behind.
        let signals = Signals.stream([SIGINT, SIGTERM, SIGHUP])

        let binding: SocketBinding
        do {
            binding = try SocketBinding.claim(path, log: log)
        } catch {
            StandardStreams.fail(error, program: program)
        }
        var limits = SocketConnection.Limits.server
        limits.maximumPayloadLength = options.maximumFrameLength
        let listener: SocketListener
        do {
            listener = try SocketListener(fd: binding.fd, path: path, limits: limits, log: log)
        } catch {
            binding.release()
            StandardStreams.fail(CommandFailure(.rejected, "cannot watch \(path): \(error)"), program: program)
        }

        let notices = NoticeBoard()
        let core = CoreNode(
            state: AppState(),
            reducer: AppReducer.reducer,
            environment: AppEnvironment(notify: notices.post),
            trace: options.trace,
            admits: AppReducer.admits,
            log: log)
        notices.connect(core.notify)
        if let startup = AppReducer.startup(for: await core.current.state) {
            await core.send(startup)
        }
        let server = SocketServer<AppState, AppAction>(listener: listener, log: log)
        log("serving \(path) (protocol \(ProtocolVersion.current), core \(core.instanceID))")

        let stopper = Task {
            for await signal in signals {
                log("received \(Signals.name(signal)); shutting down")
                await server.shutdown(reason: "the core is shutting down")
                return
            }
        }
        await server.run { session in await core.serve(session) }
        stopper.cancel()
        binding.release()
        let final = await core.current
        log("stopped at revision \(final.revision)")
        await LogLine.flush()
        exit(0)
    }
}
