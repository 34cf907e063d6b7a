import ActorNode
import Wire

/// What the app's reducers may use from the outside world. Empty for now: the to-do list needs
/// neither time nor randomness.
struct AppEnvironment: Sendable {}

/// The root reducer: every feature's reducer, each given its own part of the state.
enum AppReducer {
    static let reducer = Reducer<AppState, AppAction, AppEnvironment> { state, action, _ throws(Rejection) in
        switch action {
        case let .todo(action):
            try TodoReducer.reducer(&state.todo, action, ())
        }
    }
}
