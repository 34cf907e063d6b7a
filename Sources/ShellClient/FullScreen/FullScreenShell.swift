import ActorNode
import Glibc
import TodoContract
import Wire

/// `shell-client attach` on a terminal: the full-screen interface. Keys, the core's news and
/// signals all arrive as inputs on one channel; each goes through ``ShellKeys`` (or updates the
/// UI state), then ``ShellScreen/render(_:revision:ui:size:)`` draws the frame and the renderer
/// writes only what changed. Actions are sent without waiting: their rejects come back as
/// inputs and show in the status line.
///
/// The terminal is restored however this ends: quitting, SIGINT/SIGTERM/SIGHUP, the core gone
/// for good, or an error.
struct FullScreenShell {
    let link: ShellLink<AppState, AppAction>
    let socket: String
    /// The signals this shell handles, as ``Signals/receive()`` delivers them.
    let signals: Chan<Int32>

    /// The signals the full-screen shell handles: a resize and the stop signals. `main` blocks
    /// them first thing, so none can leave the terminal in raw mode.
    static let handledSignals: [Int32] = [SIGWINCH] + Signals.stop

    /// The full-screen `attach`, for the shell kit.
    static let attach = FullScreenAttach<AppState, AppAction>(signals: handledSignals) { link, socket, signals throws(CommandFailure) in
        try await FullScreenShell(link: link, socket: socket, signals: signals).run()
    }

    enum Input: Sendable {
        case bytes([UInt8])
        case escapePause
        case event(LinkEvent<AppState>)
        case resize
        case stop(Int32)
        case rejected(Reject)
        case failed(LinkError)
    }

    func run() async throws(CommandFailure) -> ExitStatus {
        let terminal: TerminalMode
        do {
            terminal = try TerminalMode()
        } catch {
            throw CommandFailure(.rejected, "cannot take over the terminal: \(error)")
        }
        let inputs = Chan<Input>()
        let signals = self.signals
        let link = self.link
        let tasks = [
            Task {
                for await chunk in TerminalInput.chunks() { await inputs.send(.bytes(chunk)) }
            },
            Task {
                for await event in link.events { await inputs.send(.event(event)) }
            },
            Task {
                for await signal in signals {
                    await inputs.send(signal == SIGWINCH ? .resize : .stop(signal))
                }
            },
        ]
        let outcome = await loop(inputs: inputs)
        for task in tasks { task.cancel() }
        terminal.restore()
        await link.close()
        switch outcome {
        case .quit:
            return .success
        case let .stopped(signal):
            await StandardStreams.err("shell-client: stopped by \(Signals.name(signal))\n")
            return .success
        case let .lost(error):
            if case .goodbye = error {
                await StandardStreams.err("shell-client: \(error)\n")
                return .success
            }
            throw ShellKit<TodoShell>.failure(error)
        }
    }

    private enum Outcome {
        case quit
        case stopped(Int32)
        case lost(LinkError)
    }

    private func loop(inputs: Chan<Input>) async -> Outcome {
        var ui = UIState(socket: socket)
        var state = AppState()
        var revision: UInt64 = 0
        var decoder = KeyDecoder()
        var renderer = ScreenRenderer()
        ui.shells = await link.shells

        while let input = await inputs.receive() {
            var keys: [Key] = []
            switch input {
            case let .bytes(bytes):
                keys = decoder.feed(bytes)
                if decoder.hasPendingEscape {
                    Task {
                        try? await Task.sleep(for: .milliseconds(40))
                        await inputs.send(.escapePause)
                    }
                }
            case .escapePause:
                keys = decoder.flushEscape()
            case let .event(event):
                switch event {
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
                    ui.shells = await link.shells
                    ui.message = .init(text: "reconnected", kind: .info)
                case let .ended(error?):
                    return .lost(error)
                case .ended(nil):
                    return .quit
                }
            case .resize:
                renderer.invalidate()
            case let .stop(signal):
                return .stopped(signal)
            case let .rejected(reject):
                ui.message = .init(text: "rejected: \(reject.message)", kind: .error)
            case let .failed(error):
                ui.message = .init(text: "not sent: \(error)", kind: .error)
            }
            for key in keys {
                for command in ShellKeys.handle(key, ui: &ui, state: state) {
                    switch command {
                    case .quit:
                        return .quit
                    case .redraw:
                        renderer.invalidate()
                    case let .send(action):
                        await Self.submit(action, to: link, reporting: inputs)
                    }
                }
            }
            let size = TerminalMode.size()
            let (frame, scroll, helpScroll) = ShellScreen.render(state, revision: revision, ui: ui, size: .init(rows: size.rows, columns: size.columns))
            ui.scroll = scroll
            ui.helpScroll = helpScroll
            let bytes = renderer.update(to: frame, columns: size.columns)
            if !bytes.isEmpty {
                await StandardStreams.out(bytes)
            }
        }
        return .quit
    }

    /// Sends an action in the order it was typed: it takes its sequence number now, before the
    /// next key is read (so the core applies this shell's actions in the order they were typed),
    /// and waits for its answer apart, without holding up the screen; a reject comes back as an
    /// input.
    static func submit(_ action: AppAction, to link: ShellLink<AppState, AppAction>, reporting inputs: Chan<Input>) async {
        let seq: UInt64
        do {
            seq = try await link.submit(action)
        } catch {
            await inputs.send(.failed(error))
            return
        }
        Task {
            do throws(LinkError) {
                if case let .rejected(reject) = try await link.outcome(of: seq) {
                    await inputs.send(.rejected(reject))
                }
            } catch {
                await inputs.send(.failed(error))
            }
        }
    }
}
