import Glibc
import Wire

/// `attach`: the app's full-screen interface when stdin and stdout are terminals and it has
/// one, else line mode (type verbs, see the state after every change made by anyone), so pipes
/// and scripts keep working.
enum AttachCommand<App: ShellApp> {
    /// Whether `attach` runs full screen here.
    static var isFullScreen: Bool {
        App.fullScreen != nil && StandardStreams.isTerminal(0) && StandardStreams.isTerminal(1)
    }

    static func run(options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let path = CoreConnection<App>.socketPath(options)
        if isFullScreen, let fullScreen = App.fullScreen {
            // The signals are the interface's from the start: a stop typed while it connects
            // ends it at once, one that comes once the screen is up restores the terminal.
            let signals = receiveSignals()
            typealias Opening = AttachOpening<CoreConnection<App>.Link>
            let opening = await race([
                { @Sendable () async -> Opening in
                    do throws(CommandFailure) {
                        return .opened(.success(try await open(options).0))
                    } catch {
                        return .opened(.failure(error))
                    }
                },
                { @Sendable () async -> Opening in .stopped(await signals.stops.receive() ?? SIGTERM) },
            ])
            switch opening {
            case let .opened(.success(link)):
                return try await fullScreen.run(link, path, signals.all)
            case let .opened(.failure(failure)):
                throw failure
            case let .stopped(signal):
                await StandardStreams.err("\(App.program): stopped by \(Signals.name(signal)) before attaching\n")
                return .success
            }
        }
        let (link, welcome) = try await open(options)
        await StandardStreams.out("attached to \(path) (core \(welcome.pid), \(Wording.count(welcome.shells, "shell"))); type 'help' for commands, 'quit' to leave\n")
        let shell = LineShell<App>(link: link, input: LineReader.lines())
        return try await shell.run()
    }

    private static func open(_ options: ShellOptions) async throws(CommandFailure) -> (CoreConnection<App>.Link, Welcome<App.State>) {
        try await CoreConnection<App>.open(
            options, role: .shell, name: "\(App.program) attach", reconnectFor: options.timeoutOption ?? .seconds(60))
    }

    /// Starts receiving the handled signals (blocked since `main`'s first line, taken by its
    /// thread): every one goes to `all`, for the interface; a copy of each stop signal also goes
    /// to `stops`, for whoever waits on the interface's behalf before it runs (taking from
    /// `stops` never takes one away from the interface).
    private static func receiveSignals() -> (all: Chan<Int32>, stops: Chan<Int32>) {
        let all = Chan<Int32>()
        let stops = Chan<Int32>()
        let stream = Signals.receive()
        Task {
            for await signal in stream {
                all.trySend(signal)
                if Signals.stop.contains(signal) { stops.trySend(signal) }
            }
        }
        return (all, stops)
    }
}

/// How opening the link for a full-screen attach ended: opened (or failed), or a stop signal
/// came first.
private enum AttachOpening<Link: Sendable>: Sendable {
    case opened(Result<Link, CommandFailure>)
    case stopped(Int32)
}
