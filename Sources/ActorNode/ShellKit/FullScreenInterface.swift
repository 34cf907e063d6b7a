import Wire

/// An app's full-screen interface, as the shell's loop (``FullScreenLoop``) runs it: every call
/// on the loop's one thread, in the order things happened, none of them blocking. The loop owns
/// the socket, the keys, the signals and the time; the interface turns what happened into
/// actions and a frame, Elm-style (`update` is ``handle(_:)``, `view` is ``frame()``).
public protocol FullScreenInterface<State, Action> {
    associatedtype State: Codable & Sendable
    associatedtype Action: Codable & Sendable

    /// Takes over the terminal (raw mode, the alternate screen). Called once the core has
    /// welcomed the shell, before anything else.
    mutating func start() throws(CommandFailure)

    /// Something happened; what to do about it.
    /// - Parameter input: keys typed, a new state, the core's news, a resize, a timer.
    mutating func handle(_ input: FullScreenInput<State>) -> FullScreenReply<Action>

    /// The bytes that bring the terminal to the current frame; empty when nothing changed.
    /// Called after each batch of inputs.
    mutating func frame() -> [UInt8]

    /// Gives the terminal back, however the session ended (called once if ``start()`` was).
    mutating func stop()
}

/// What a full-screen interface is told.
public enum FullScreenInput<State: Sendable>: Sendable {
    /// Bytes typed on the terminal, as read.
    case keys([UInt8])
    /// The wake-up the interface asked for (``FullScreenReply/wakeAfter``) is due.
    case wake
    /// The state at a revision: the newest one, once the inputs at hand are taken.
    case state(revision: UInt64, State)
    /// Something the core said to every shell.
    case notice(String)
    /// Shells and watchers attached now.
    case presence(shells: Int)
    /// The connection was lost; the loop is reconnecting.
    case reconnecting(String)
    /// Back at this revision.
    case reconnected(revision: UInt64)
    /// The core refused one of this shell's actions.
    case rejected(Reject)
    /// The terminal changed size.
    case resized
}

/// What a full-screen interface wants done.
public struct FullScreenReply<Action: Sendable>: Sendable {
    /// Actions to send, in order.
    public var actions: [Action]
    /// Whether the user asked to leave.
    public var quit: Bool
    /// Call back with ``FullScreenInput/wake`` after this long (an escape key waiting to be
    /// told from an escape sequence).
    public var wakeAfter: Duration?

    /// - Parameters:
    ///   - actions: actions to send, in order.
    ///   - quit: whether to leave.
    ///   - wakeAfter: when to be woken, if at all.
    public init(actions: [Action] = [], quit: Bool = false, wakeAfter: Duration? = nil) {
        self.actions = actions
        self.quit = quit
        self.wakeAfter = wakeAfter
    }
}
