import Wire

/// An app's shell, described once: the contract it speaks, the verbs people type, and how its
/// state reads as text. ``ShellKit`` turns the description into a command with everything else
/// a shell needs: `send` (verbs, `--json`, `-` for one action per line), `state [--json]`,
/// `watch [--json] [--count N]`, a line-mode `attach`, reconnection and resending with the same
/// (client, seq), the exit codes and a generated `--help`.
///
/// ```swift
/// enum NotesShell: ShellApp {
///     static let program = "notes-shell"
///     static let naming = AppNaming("notes")
///     static let summary = "a shell of the notes app"
///     static let verbs: [Verb<NotesAction>] = [
///         Verb("note", usage: "note TEXT", "write a note") { .note(try $0.text()) },
///     ]
///     static func render(_ state: NotesState, revision: UInt64) -> String { ... }
/// }
///
/// @main enum Main { static func main() { exit(ShellKit<NotesShell>.main()) } }
/// ```
public protocol ShellApp: SendableMetatype {
    /// The state the core sends.
    associatedtype State: Codable & Sendable
    /// The actions this shell sends.
    associatedtype Action: Codable & Sendable

    /// The command's name: `shell-client`.
    static var program: String { get }
    /// Where the core's socket is by default (the core's naming).
    static var naming: AppNaming { get }
    /// One line for `--help`: what this shell is for.
    static var summary: String { get }
    /// The version `--version` prints; by default CAMA's.
    static var version: String { get }
    /// The verbs of `send` and of the line shell.
    static var verbs: [Verb<Action>] { get }
    /// Lines of `--help` showing actions as JSON (`{"add":{"text":"buy milk"}}`); by default none.
    static var jsonExamples: [String] { get }
    /// More paragraphs for the end of `--help`; by default none.
    static var helpNotes: String { get }
    /// How to start a core, for the message a shell prints when there is none.
    static var startHint: String { get }
    /// The state as text for people (`state`, the line shell): lines, each ending in a newline.
    /// - Parameters:
    ///   - state: the state.
    ///   - revision: its revision.
    static func render(_ state: State, revision: UInt64) -> String
    /// What `watch` prints when the state changes from `old` (nil for the first state) to
    /// `new`; by default the whole new state, as ``render(_:revision:)`` does.
    /// - Parameters:
    ///   - old: the state printed last, if any.
    ///   - new: the new state.
    ///   - revision: the new state's revision.
    static func renderChange(from old: State?, to new: State, revision: UInt64) -> String
    /// A full-screen `attach` for terminals, if the app has one; line mode otherwise.
    static var fullScreen: FullScreenAttach<State, Action>? { get }
}

extension ShellApp {
    public static var version: String { CAMAVersion.current }
    public static var jsonExamples: [String] { [] }
    public static var helpNotes: String { "" }
    public static var startHint: String { "'cama-launch --detach'" }
    /// The whole new state, and a blank line.
    /// - Parameters:
    ///   - old: the state printed last, if any.
    ///   - new: the new state.
    ///   - revision: the new state's revision.
    public static func renderChange(from old: State?, to new: State, revision: UInt64) -> String {
        render(new, revision: revision) + "\n"
    }
    public static var fullScreen: FullScreenAttach<State, Action>? { nil }
}

/// A full-screen interface for `attach` on a terminal: the signals it handles, and how to make
/// it for a session. The shell runs it on its one loop (``FullScreenLoop``).
public struct FullScreenAttach<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// The signals it handles (a resize, the stop signals); `main` blocks them first thing.
    public let signals: [Int32]
    /// Makes the interface for a session with the core at `socket`.
    public let make: @Sendable (_ socket: String) -> any FullScreenInterface<State, Action>

    /// - Parameters:
    ///   - signals: the signals the interface handles.
    ///   - make: makes the interface for a session on a socket.
    public init(signals: [Int32], make: @escaping @Sendable (_ socket: String) -> any FullScreenInterface<State, Action>) {
        self.signals = signals
        self.make = make
    }
}
