import Glibc
import Wire

/// A ``ScreenApp``'s full screen on the shell's one loop (``FullScreenLoop``): the terminal
/// taken over and given back, the bytes typed turned into keys (``KeyDecoder``), the core's
/// news into the ``ScreenModel``, and each frame into the bytes that changed
/// (``ScreenRenderer``). Actions go out without waiting: their rejects come back as inputs and
/// show in the status line.
package struct ScreenInterface<App: ScreenApp>: FullScreenInterface {
    /// The signals a full screen handles: a resize and the stop signals. `main` blocks them
    /// first thing, so none can leave the terminal in raw mode.
    package static var handledSignals: [Int32] { [SIGWINCH] + Signals.stop }

    /// Whether ``start()`` takes over the terminal (false in tests, which have none).
    package var takesTerminal: Bool
    /// What the screen shows.
    package var model: ScreenModel<App>
    /// The terminal's size in rows and columns: stdout's (a test sets its own).
    package var size: () -> (rows: Int, columns: Int) = { TerminalMode.size() }
    private var terminal: TerminalMode?
    private var decoder = KeyDecoder()
    private var renderer = ScreenRenderer()

    /// - Parameters:
    ///   - socket: the core's socket, for the status line.
    ///   - options: what `attach` was given, for the app's first UI state.
    ///   - takesTerminal: whether ``start()`` takes over the terminal.
    package init(socket: String, options: AttachOptions, takesTerminal: Bool = true) {
        model = ScreenModel(socket: socket, ui: App.ui(options))
        self.takesTerminal = takesTerminal
    }

    package mutating func start() throws(CommandFailure) {
        guard takesTerminal else { return }
        do {
            terminal = try TerminalMode()
        } catch {
            throw CommandFailure(.rejected, "cannot take over the terminal: \(error)")
        }
    }

    package mutating func handle(_ input: FullScreenInput<App.State>) -> FullScreenReply<App.Action> {
        var keys: [Key] = []
        var reply = FullScreenReply<App.Action>()
        switch input {
        case let .keys(bytes):
            keys = decoder.feed(bytes)
            // A lone escape waits a moment to be told from the start of a sequence.
            if decoder.hasPendingEscape { reply.wakeAfter = .milliseconds(40) }
        case .wake:
            keys = decoder.flushEscape()
        case let .state(revision, state):
            model.receive(state, revision: revision)
        case let .notice(text):
            model.message = .init("notice: " + text, isError: false)
        case let .presence(shells):
            model.shells = shells
        case let .reconnecting(announcement):
            model.connection = .reconnecting(announcement)
            model.message = .init(ScreenModel<App>.reconnectingMessage(announcement), isError: true)
        case .reconnected:
            model.connection = .connected
            model.message = .init("reconnected", isError: false)
        case let .rejected(reject):
            model.message = .init("rejected: \(reject.message)", isError: true)
        case .resized:
            renderer.invalidate()
        }
        for key in keys {
            for output in model.press(key) {
                switch output {
                case let .send(action):
                    reply.actions.append(action)
                case .quit:
                    reply.quit = true
                    return reply
                case .redraw:
                    renderer.invalidate()
                }
            }
        }
        return reply
    }

    package mutating func frame() -> [UInt8] {
        let size = size()
        let frame = model.frame(rows: size.rows, columns: size.columns)
        return Array(renderer.update(to: frame, columns: size.columns).utf8)
    }

    package mutating func stop() {
        terminal?.restore()
        terminal = nil
    }
}
