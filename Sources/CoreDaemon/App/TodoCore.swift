import ActorNode
import TodoContract
import Wire

/// The to-do app's core, as the host needs to know it: its contract, its reducers, and its
/// name. Everything else (the socket, the journal, supervision, the command line) is the
/// framework's. `core-daemon` runs it (``CoreDaemonMain``).
enum TodoCore: CoreApp {
    typealias Contract = Todo
    static let program = "core-daemon"
    static let summary = "the CAMA core. Owns the to-do app's state and serves shells on a Unix socket."
    static let initialState = AppState()
    static let reducer = AppReducer.reducer

    static func environment(_ services: CoreServices) -> AppEnvironment {
        AppEnvironment(time: services.time, random: services.random, notify: services.notify)
    }

    static func admits(_ action: AppAction) -> Rejection? { AppReducer.admits(action) }
}
