import Wire

/// An app's core, described once: its state and actions, its reducer and environment, and how
/// it is named. ``CoreHost`` turns the description into a daemon with everything else a core
/// needs: the socket, the journal and exactly-once, recovery, `--check` and `--repair`, socket
/// activation, readiness, the launcher's lifeline, logs, signals and exit codes.
///
/// ```swift
/// enum NotesCore: CoreApp {
///     static let program = "notes-core"
///     static let naming = AppNaming("notes")
///     static let summary = "the core of a notes app"
///     static let initialState = NotesState()
///     static let reducer = NotesReducer.reducer
///     static func environment(_ services: CoreServices) -> NotesEnvironment { ... }
/// }
///
/// @main enum Main { static func main() { exit(CoreHost<NotesCore>.main()) } }
/// ```
public protocol CoreApp: SendableMetatype {
    /// The state the core owns: what shells see, and what the journal and snapshots keep.
    associatedtype State: Codable & Sendable & Equatable
    /// What clients (and the core's own effects) ask the core to do.
    associatedtype Action: Codable & Sendable
    /// What the reducer and its effects may use of the outside world.
    associatedtype Environment: Sendable

    /// The daemon's name, in its messages and `--help`: `core-daemon`.
    static var program: String { get }
    /// Where its socket and state live by default.
    static var naming: AppNaming { get }
    /// One line for `--help`: what this core serves.
    static var summary: String { get }
    /// The version `--version` prints; by default CAMA's.
    static var version: String { get }
    /// The state of a core that has nothing recorded yet.
    static var initialState: State { get }
    /// The app's logic.
    static var reducer: Reducer<State, Action, Environment> { get }
    /// Builds the environment from what the host provides (the live clock, randomness, a way
    /// to tell every shell something). Replays of the journal get an environment made here too,
    /// but their effects never run.
    /// - Parameter services: what the host provides.
    static func environment(_ services: CoreServices) -> Environment
    /// Refuses the actions clients may not send (the app's internal ones): a rejection for
    /// those, nil for the rest. By default every action is admitted.
    /// - Parameter action: an action a client sent.
    static func admits(_ action: Action) -> Rejection?
    /// The actions the core sends itself when it starts with `state` (resuming a timer, say);
    /// by default none, so an idle start uses no revision.
    /// - Parameter state: the state recovered from the state directory.
    static func startup(for state: State) -> [Action]
}

extension CoreApp {
    /// CAMA's version.
    public static var version: String { CAMAVersion.current }
    /// Every action is admitted.
    /// - Parameter action: an action a client sent.
    public static func admits(_ action: Action) -> Rejection? { nil }
    /// No startup actions.
    /// - Parameter state: the state recovered.
    public static func startup(for state: State) -> [Action] { [] }
}

/// What the host gives an app's environment.
public struct CoreServices: Sendable {
    /// The live clock, for effects.
    public var time: any TimeSource
    /// Random numbers, for effects (never for reducers: a replay must not draw again).
    public var random: RandomSource
    /// Tells every attached shell something that is not part of the state, after the state it
    /// is about.
    public var notify: @Sendable (String) -> Void

    /// - Parameters:
    ///   - time: the clock.
    ///   - random: the source of random numbers.
    ///   - notify: how to tell every shell something.
    public init(time: any TimeSource = SystemTime(), random: RandomSource = .system, notify: @escaping @Sendable (String) -> Void = { _ in }) {
        self.time = time
        self.random = random
        self.notify = notify
    }
}
