import FoundationEssentials
import Wire

/// An app's core, described once: its contract, its reducer and environment. ``CoreHost``
/// turns the description into a daemon with everything else a core needs: the socket, the
/// journal and exactly-once, recovery, `--check` and `--repair`, socket activation, readiness,
/// the launcher's lifeline, logs, signals and exit codes. Mark it `@main`: the program is the
/// host's.
///
/// ```swift
/// @main
/// enum NotesCore: CoreApp {
///     typealias Contract = Notes
///     static let summary = "the core of a notes app"
///     static let initialState = NotesState()
///     static let reducer = NotesReducer.reducer
///     static func environment(_ services: CoreServices) -> NotesEnvironment { ... }
/// }
/// ```
public protocol CoreApp: SendableMetatype {
    /// The app's contract: its state, its actions and its name.
    associatedtype Contract: AppContract
    /// What the reducer and its effects may use of the outside world.
    associatedtype Environment: Sendable
    /// The state the core owns: what shells see, and what the journal and snapshots keep.
    typealias State = Contract.State
    /// What clients (and the core's own effects) ask the core to do.
    typealias Action = Contract.Action

    /// The daemon's name, in its messages and `--help`: by default the executable's own
    /// (`chat-core`), which is the product's name.
    static var program: String { get }
    /// Where its socket and state live by default: by default the contract's name's.
    static var naming: AppNaming { get }
    /// One line for `--help`: what this core serves; by default `the core of the NAME app`.
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
    /// The actions the core sends itself when it starts with `state` (checking something the
    /// state says must be checked at each start, say; a deadline is better kept as a durable
    /// timer, ``Effect/send(_:at:id:)``, which the core re-arms itself); by default none, so an
    /// idle start uses no revision.
    /// - Parameter state: the state recovered from the state directory.
    static func startup(for state: State) -> [Action]
}

extension CoreApp {
    /// The executable's name.
    public static var program: String { ProgramName.current }
    /// The contract's name's places and variables.
    public static var naming: AppNaming { AppNaming(Contract.name) }
    /// `the core of the NAME app`.
    public static var summary: String { "the core of the \(Contract.name) app." }
    /// CAMA's version.
    public static var version: String { CAMAVersion.current }
    /// Every action is admitted.
    /// - Parameter action: an action a client sent.
    public static func admits(_ action: Action) -> Rejection? { nil }
    /// No startup actions.
    /// - Parameter state: the state recovered.
    public static func startup(for state: State) -> [Action] { [] }

    /// The core's program: ``CoreHost/main()``, then the end of the process with the status it
    /// returns. What `@main` on a `CoreApp` runs.
    public static func main() {
        ProgramEntry.end(CoreHost<Self>.main())
    }
}

/// What the host gives an app's environment; an app that needs nothing else uses it as its
/// environment as it is (`Reducer<State, Action, CoreServices>`, no `environment(_:)` to
/// write).
///
/// Its ``now`` is the reducers' clock: the moment the action is applied, which the journal
/// records with the action and gives again when it is replayed, so a reducer that reads it
/// (a deadline: `environment.now.timeIntervalSince1970 + 30`) makes the same state every time.
/// Reducers never read the live clock; effects do (``time``).
public struct CoreServices: ActionTimedEnvironment {
    /// The moment the action being applied is applied at: the reducers' "now".
    public var now = Date(timeIntervalSince1970: 0)
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

    /// These services with `moment` as the reducers' "now" (the store sets it for each action).
    /// - Parameter moment: the moment the action is applied at.
    public func applying(at moment: Date) -> CoreServices {
        var copy = self
        copy.now = moment
        return copy
    }

    /// Sets the reducers' "now" in place (the store does, before each action).
    /// - Parameter moment: the moment the action is applied at.
    public mutating func setNow(_ moment: Date) {
        now = moment
    }
}

extension CoreApp where Environment == CoreServices {
    /// The host's services, as they are.
    /// - Parameter services: what the host provides.
    public static func environment(_ services: CoreServices) -> CoreServices { services }
}
