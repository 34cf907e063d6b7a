/// An app's contract, declared once in the module its core and its shells share: the state the
/// core owns, the actions clients send, and the app's name. The core (`CoreApp`) and the shell
/// (`ShellApp`) name the contract and read everything else from it, so they cannot disagree:
/// the name decides where both look for the socket and the state by default (`notes` gives
/// `$NOTES_SOCKET`, `$XDG_RUNTIME_DIR/notes/core.sock`, `$NOTES_STATE_DIR`, ...).
///
/// ```swift
/// public enum Notes: AppContract {
///     public typealias State = NotesState
///     public typealias Action = NotesAction
///     public static let name = "notes"
/// }
/// ```
public protocol AppContract {
    /// The state the core owns and every shell mirrors: its JSON is what shells see, and what
    /// the journal and snapshots keep.
    associatedtype State: Codable & Sendable & Equatable
    /// What clients (and the core's own effects) ask the core to do.
    associatedtype Action: Codable & Sendable
    /// The app's name, in lower case: the default places of its socket and state, and its
    /// environment variables (upper-cased: `NOTES_SOCKET`).
    static var name: String { get }
}
