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

    /// The full-screen `attach`, on the calling thread (the main thread, with the interface's
    /// signals blocked since `main`'s first line): the shell's one loop.
    static func runFullScreen(_ fullScreen: FullScreenAttach<App.State, App.Action>, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        let path = try CoreConnection<App>.checkedSocketPath(options)
        let timeout = options.timeout
        let machine = CoreConnection<App>.machine(
            options, role: .shell, name: "\(App.program) attach", reconnectFor: options.timeoutOption ?? .seconds(60), mirrors: true)
        let outcome = try runLoop(fullScreen.make(path, AttachOptions(options.attach)), machine: machine, signals: fullScreen.signals) { () throws(LinkError) -> Int32 in
            do throws(ServerConnector.Failure) {
                return try ServerConnector.connectBlocking(to: path, timeout: timeout)
            } catch {
                throw BlockingClient.linkError(error)
            }
        }
        switch outcome {
        case .quit:
            return .success
        case let .stopped(signal):
            StandardStreams.writeNow(2, Array("\(App.program): stopped by \(Signals.name(signal))\n".utf8))
            return .success
        case let .lost(error):
            if case .goodbye = error {
                StandardStreams.writeNow(2, Array("\(App.program): \(error)\n".utf8))
                return .success
            }
            throw CoreConnection<App>.failure(error)
        }
    }

    private static func runLoop<Interface: FullScreenInterface>(
        _ interface: Interface, machine: ClientMachine, signals: [Int32], connect: @escaping () throws(LinkError) -> Int32
    ) throws(CommandFailure) -> FullScreenOutcome {
        try FullScreenLoop(machine: machine, interface: interface, signals: signals, connect: connect).run()
    }

    /// The line-mode `attach`.
    static func run(options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let path = CoreConnection<App>.socketPath(options)
        let (link, welcome) = try await open(options)
        await StandardStreams.out("attached to \(path) (core \(welcome.pid), \(Wording.count(welcome.shells, "shell"))); type 'help' for commands, 'quit' to leave\n")
        let shell = LineShell<App>(link: link, input: LineReader.lines())
        return try await shell.run()
    }

    private static func open(_ options: ShellOptions) async throws(CommandFailure) -> (CoreConnection<App>.Link, Welcome<App.State>) {
        try await CoreConnection<App>.open(
            options, role: .shell, name: "\(App.program) attach", reconnectFor: options.timeoutOption ?? .seconds(60))
    }
}
