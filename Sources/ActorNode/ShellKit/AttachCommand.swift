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

    /// Whether the line-mode `attach` edits its lines here (``LineEditor``): when stdin and
    /// stdout are a terminal. Otherwise it reads plain lines, as scripts expect.
    static var editsLines: Bool {
        StandardStreams.isTerminal(0) && StandardStreams.isTerminal(1)
    }

    /// The signals the line-mode `attach` takes (blocked since `main`'s first line): the stop
    /// signals while it edits lines, so that it gives the terminal back; none otherwise.
    static var lineModeSignals: [Int32] {
        editsLines ? Signals.stop : []
    }

    /// The full-screen `attach`, on the calling thread (the main thread, with the interface's
    /// signals blocked since `main`'s first line): the shell's one loop.
    static func runFullScreen(_ fullScreen: FullScreenAttach<App.State, App.Action>, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        let route = try CoreConnection<App>.route(options)
        let timeout = options.timeout
        let machine = CoreConnection<App>.machine(
            options, role: .shell, name: "\(App.program) attach", reconnectFor: options.timeoutOption ?? .seconds(60), mirrors: true)
        let outcome = try runLoop(fullScreen.make(route.description, AttachOptions(options.attach)), machine: machine, signals: fullScreen.signals) { @Sendable () throws(LinkError) -> Int32 in
            try route.connectBlocking(timeout: timeout)
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
            throw CoreConnection<App>.failure(error, host: options.ssh)
        }
    }

    private static func runLoop<Interface: FullScreenInterface>(
        _ interface: Interface, machine: ClientMachine, signals: [Int32], connect: @escaping @Sendable () throws(LinkError) -> Int32
    ) throws(CommandFailure) -> FullScreenOutcome {
        try FullScreenLoop(machine: machine, interface: interface, signals: signals, connect: connect).run()
    }

    /// The line-mode `attach`: lines edited on a terminal, plain lines from a pipe.
    static func run(options: ShellOptions) async throws(CommandFailure) -> ExitStatus {
        let place = try CoreConnection<App>.route(options).description
        let (link, welcome) = try await open(options)
        let banner = "attached to \(place) (core \(welcome.pid), \(Wording.count(welcome.shells, "shell"))); type 'help' for commands, 'quit' to leave\n"
        let editor = editsLines ? try? LineEditor() : nil
        // The stop signals, when this process takes them (``lineModeSignals``), give the
        // terminal back before the program ends.
        let stopping = Task {
            for await signal in Signals.receive() {
                await editor?.stop()
                await StandardStreams.err("\(App.program): stopped by \(Signals.name(signal))\n")
                ProgramMain.end(ExitStatus.success.rawValue)
                return
            }
        }
        defer { stopping.cancel() }
        guard let editor else {
            await StandardStreams.out(banner)
            return try await LineShell<App>(link: link, input: LineReader.lines()).run()
        }
        await editor.print(banner)
        let shell = LineShell<App>(link: link, input: editor.lines(), output: { await editor.print($0) })
        do {
            let status = try await shell.run()
            await editor.stop()
            return status
        } catch {
            await editor.stop()
            throw error
        }
    }

    private static func open(_ options: ShellOptions) async throws(CommandFailure) -> (CoreConnection<App>.Link, Welcome<App.State>) {
        try await CoreConnection<App>.open(
            options, role: .shell, name: "\(App.program) attach", reconnectFor: options.timeoutOption ?? .seconds(60))
    }
}
