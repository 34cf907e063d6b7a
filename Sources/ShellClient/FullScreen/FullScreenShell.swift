import ActorNode
import Glibc
import TodoContract
import Wire

/// `shell-client attach` on a terminal: the full-screen interface, run by the shell's one loop
/// (``FullScreenLoop``): keys, the core's news and resizes come in as ``FullScreenInput``s; each
/// key goes through ``ShellKeys`` (or updates the UI state), and ``frame()`` draws with
/// ``ShellScreen/render(_:revision:ui:size:)`` while the renderer writes only what changed.
/// Actions go out without waiting: their rejects come back as inputs and show in the status
/// line.
///
/// The loop gives the terminal back however the session ends: quitting, SIGINT/SIGTERM/SIGHUP,
/// the core gone for good, or an error.
struct FullScreenShell: FullScreenInterface {
    /// The signals the full-screen shell handles: a resize and the stop signals. `main` blocks
    /// them first thing, so none can leave the terminal in raw mode.
    static let handledSignals: [Int32] = [SIGWINCH] + Signals.stop

    /// The full-screen `attach`, for the shell kit.
    static let attach = FullScreenAttach<AppState, AppAction>(signals: handledSignals) { socket in
        FullScreenShell(socket: socket)
    }

    /// Whether ``start()`` takes over the terminal (false in tests, which have none).
    var takesTerminal = true
    private var terminal: TerminalMode?
    private var ui: UIState
    private var state = AppState()
    private var revision: UInt64 = 0
    private var decoder = KeyDecoder()
    private var renderer = ScreenRenderer()
    /// The done items of each chunk of the list, for the title.
    private var doneCounts = ChunkSums()

    /// - Parameter socket: the core's socket, for the status line.
    init(socket: String) {
        ui = UIState(socket: socket)
    }

    mutating func start() throws(CommandFailure) {
        guard takesTerminal else { return }
        do {
            terminal = try TerminalMode()
        } catch {
            throw CommandFailure(.rejected, "cannot take over the terminal: \(error)")
        }
    }

    mutating func handle(_ input: FullScreenInput<AppState>) -> FullScreenReply<AppAction> {
        var keys: [Key] = []
        var reply = FullScreenReply<AppAction>()
        switch input {
        case let .keys(bytes):
            keys = decoder.feed(bytes)
            // A lone escape waits a moment to be told from the start of a sequence.
            if decoder.hasPendingEscape { reply.wakeAfter = .milliseconds(40) }
        case .wake:
            keys = decoder.flushEscape()
        case let .state(newRevision, newState):
            revision = newRevision
            state = newState
            ui.follow(state.todo.items)
        case let .notice(text):
            ui.message = .init(text: "notice: " + text, kind: .info)
        case let .presence(shells):
            ui.shells = shells
        case let .reconnecting(reason):
            ui.connection = .reconnecting(reason)
            ui.message = .init(text: "\(reason); reconnecting…", kind: .error)
        case .reconnected:
            ui.connection = .connected
            ui.message = .init(text: "reconnected", kind: .info)
        case let .rejected(reject):
            ui.message = .init(text: "rejected: \(reject.message)", kind: .error)
        case .resized:
            renderer.invalidate()
        }
        for key in keys {
            for command in ShellKeys.handle(key, ui: &ui, state: state) {
                switch command {
                case .quit:
                    reply.quit = true
                    return reply
                case .redraw:
                    renderer.invalidate()
                case let .send(action):
                    reply.actions.append(action)
                }
            }
        }
        return reply
    }

    mutating func frame() -> [UInt8] {
        let size = TerminalMode.size()
        // Done items counted chunk by chunk, the chunks that did not change not gone through again.
        let done = state.todo.items.sum({ $0.done ? 1 : 0 }, cache: &doneCounts)
        let (frame, scroll, helpScroll) = ShellScreen.render(state, revision: revision, ui: ui, size: .init(rows: size.rows, columns: size.columns), doneCount: done)
        ui.scroll = scroll
        ui.helpScroll = helpScroll
        return Array(renderer.update(to: frame, columns: size.columns).utf8)
    }

    mutating func stop() {
        terminal?.restore()
        terminal = nil
    }
}
