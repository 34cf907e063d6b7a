/// A shell with a full screen, declared the way Elm declares a program: a **view** of the state
/// and of the app's own UI state as keyed rows, the **keys** (each a change of the UI state or
/// actions to send, with a line of help), and **prompts** for text. The kit does the rest on the
/// shell's one loop: the terminal (raw mode, the alternate screen, given back on every way out,
/// a crash included), drawing only the lines that changed, resizes, the selection or the scroll
/// position following its row by key, paging, the help on `?`, the status line (socket,
/// connection, revision, shells, the last reject) and an input line with editing and history.
///
/// ```swift
/// extension NotesShell: ScreenApp {
///     static func view(_ state: NotesState, _ ui: Void) -> Screen<Int> {
///         Screen(header: [Row(" notes", .bold)],
///                list: .selecting(state.notes) { note, _ in Row([Cell.fill(note.text)]) })
///     }
///     static let keys: [KeyBinding<NotesShell>] = [
///         KeyBinding("a", help: "add a note") { _ in [.prompt(add)] },
///         KeyBinding("d", help: "delete the selected note") { screen in
///             screen.selected.map { [.send(.delete(id: $0))] } ?? []
///         },
///     ]
///     static let add = Prompt<NotesShell>("add: ") { text, _ in [.send(.add(text: text))] }
/// }
/// ```
///
/// A conforming shell needs nothing else: its ``ShellApp/fullScreen`` is the kit, and `attach`
/// on a terminal runs it.
public protocol ScreenApp: ShellApp {
    /// The app's own UI state, beside the kit's (which keeps the selection, the scroll position,
    /// the prompt being typed and the status line): what the app's keys change without the
    /// core, such as the chat room's name. `Void` when the app has none.
    associatedtype UI = Void
    /// The key of a row of the list: stable across changes (an item's id), so that the selection
    /// and the scroll position follow the row when others come and go.
    associatedtype RowID: Hashable = Int

    /// Options `attach` takes for the full screen (parsed, and listed in `--help`, by the kit);
    /// by default none.
    static var attachOptions: [AttachOption] { get }

    /// The UI state a full screen starts with.
    /// - Parameter options: the values of ``attachOptions``, and the environment.
    static func ui(_ options: AttachOptions) -> UI

    /// The screen for a state, as rows (Elm's `view`): a few rows on top, a list, a few rows
    /// below. Called once per change of the state or the UI state; it only describes the list,
    /// whose rows the kit asks for as it shows them, so its cost need not grow with the state.
    /// - Parameters:
    ///   - state: the newest state.
    ///   - ui: the app's UI state.
    static func view(_ state: State, _ ui: UI) -> Screen<RowID>

    /// The app's keys, looked up before the kit's own (arrows, paging, `?`, `q`, Ctrl-L); each
    /// with its line of the help. By default none.
    static var keys: [KeyBinding<Self>] { get }

    /// An input line always open below the list, as a chat's: printable keys type into it and
    /// Enter gives its text to the prompt (empty lines are not given). The list then scrolls
    /// with PgUp and PgDn, and `?` on an empty line shows the help. Nil (the default) for a
    /// screen driven by keys, where ``KeyBinding``s open prompts when they need text.
    static var input: Prompt<Self>? { get }
}

extension ScreenApp {
    /// No options of its own.
    public static var attachOptions: [AttachOption] { [] }
    /// No keys of its own: the kit's alone.
    public static var keys: [KeyBinding<Self>] { [] }
    /// No input line: a screen driven by keys.
    public static var input: Prompt<Self>? { nil }

    /// The kit, as the shell's full-screen `attach`.
    public static var fullScreen: FullScreenAttach<State, Action>? {
        FullScreenAttach(signals: ScreenInterface<Self>.handledSignals, options: attachOptions) { socket, options in
            ScreenInterface<Self>(socket: socket, options: options)
        }
    }
}

extension ScreenApp where UI == Void {
    /// No UI state of the app's own.
    /// - Parameter options: the values of ``attachOptions``.
    public static func ui(_ options: AttachOptions) {}

    /// The full screen as text, for `state`, `watch` and the line shell, unless the app writes
    /// its own: `revision R`, then the view's rows (the header, every row of the list, the
    /// footer), each cell's text escaped, one line each.
    /// - Parameters:
    ///   - state: the state.
    ///   - revision: its revision.
    public static func render(_ state: State, revision: UInt64) -> String {
        view(state, ()).text(revision: revision)
    }
}
