import Wire

/// An app's shell, described once: the contract it speaks, the verbs people type, and how its
/// state reads as text. ``ShellKit`` turns the description into a command with everything else
/// a shell needs: `send` (verbs, `--json`, `-` for one action per line), `state [--json]`,
/// `watch [--json] [--count N]`, a line-mode `attach`, reconnection and resending with the same
/// (client, seq), the exit codes and a generated `--help`. Mark it `@main`: the program is the
/// kit's.
///
/// ```swift
/// @main
/// enum NotesShell: ShellApp {
///     typealias Contract = Notes
///     static let summary = "a shell of the notes app"
///     static let verbs: [Verb<NotesAction>] = [
///         Verb("note", usage: "note TEXT", "write a note", example: #"send note "buy milk""#) { .note(try $0.text()) },
///     ]
///     static func render(_ state: NotesState, revision: UInt64) -> String { ... }
/// }
/// ```
public protocol ShellApp: SendableMetatype {
    /// The app's contract: its state, its actions and its name.
    associatedtype Contract: AppContract
    /// The state the core sends.
    typealias State = Contract.State
    /// The actions this shell sends.
    typealias Action = Contract.Action

    /// The command's name: by default the executable's own (`chat-shell`), which is the
    /// product's name.
    static var program: String { get }
    /// Where the core's socket is by default: by default the contract's name's, as the core's.
    static var naming: AppNaming { get }
    /// One line for `--help`: what this shell is for; by default `a shell of the NAME app, ...`.
    static var summary: String { get }
    /// The version `--version` prints; by default CAMA's.
    static var version: String { get }
    /// The verbs of `send` and of the line shell.
    static var verbs: [Verb<Action>] { get }
    /// Lines of `--help` showing actions as JSON (`{"add":{"text":"buy milk"}}`); by default
    /// the verbs' examples, each read as its verb reads it and written as JSON.
    static var jsonExamples: [String] { get }
    /// More paragraphs for the end of `--help`; by default none.
    static var helpNotes: String { get }
    /// How to start a core, for the message a shell prints when there is none; by default
    /// `'cama-launch --detach --core NAME-core --shell PROGRAM'`, NAME being the contract's.
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
    /// The executable's name.
    public static var program: String { ProgramName.current }
    /// The contract's name's places and variables.
    public static var naming: AppNaming { AppNaming(Contract.name) }
    /// `a shell of the NAME app, for people and for scripts`.
    public static var summary: String { "a shell of the \(Contract.name) app, for people and for scripts." }
    public static var version: String { CAMAVersion.current }
    /// The verbs' examples, as JSON.
    public static var jsonExamples: [String] { VerbTable(verbs: verbs).jsonExamples }
    public static var helpNotes: String { "" }
    /// The launcher with this app's core (`NAME-core`) and this shell.
    public static var startHint: String { "'cama-launch --detach --core \(Contract.name)-core --shell \(program)'" }
    /// The whole new state, and a blank line.
    /// - Parameters:
    ///   - old: the state printed last, if any.
    ///   - new: the new state.
    ///   - revision: the new state's revision.
    public static func renderChange(from old: State?, to new: State, revision: UInt64) -> String {
        render(new, revision: revision) + "\n"
    }
    public static var fullScreen: FullScreenAttach<State, Action>? { nil }

    /// The shell's program: ``ShellKit/main()``, then the end of the process with the status it
    /// returns. What `@main` on a `ShellApp` runs.
    public static func main() {
        ProgramEntry.end(ShellKit<Self>.main())
    }
}

/// A full-screen interface for `attach` on a terminal: the signals it handles, the options it
/// takes, and how to make it for a session. The shell runs it on its one loop
/// (``FullScreenLoop``). A ``ScreenApp`` gets one from the kit; an app that draws its own
/// screen makes one.
public struct FullScreenAttach<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    /// The signals it handles (a resize, the stop signals); `main` blocks them first thing.
    public let signals: [Int32]
    /// The options `attach` takes for it (listed in `--help`).
    public let options: [AttachOption]
    /// Makes the interface for a session with the core at `socket` (its path; `HOST` or
    /// `HOST:PATH` for a core reached with `--ssh`), with the options given.
    public let make: @Sendable (_ socket: String, _ options: AttachOptions) -> any FullScreenInterface<State, Action>

    /// - Parameters:
    ///   - signals: the signals the interface handles.
    ///   - options: the options `attach` takes for it.
    ///   - make: makes the interface for a session on a socket, with the options given.
    public init(
        signals: [Int32], options: [AttachOption] = [],
        make: @escaping @Sendable (_ socket: String, _ options: AttachOptions) -> any FullScreenInterface<State, Action>
    ) {
        self.signals = signals
        self.options = options
        self.make = make
    }
}
