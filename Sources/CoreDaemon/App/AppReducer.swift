import ActorNode
import TodoContract
import Wire

/// The root reducer: each feature's reducer, given its own part of the state and of the
/// actions, composed in order (the timer runs after the to-do list, to see its removals).
enum AppReducer {
    static let reducer = Reducer<AppState, AppAction, AppEnvironment>.combine(
        TodoReducer.reducer.scope(
            state: \.todo,
            action: ActionPath(extract: { if case let .todo(action) = $0 { action } else { nil } }, embed: AppAction.todo),
            environment: { _ in () }),
        CounterReducer.reducer.scope(
            state: \.counter,
            action: ActionPath(extract: { if case let .counter(action) = $0 { action } else { nil } }, embed: AppAction.counter)),
        TimerReducer.reducer
    )

    /// Refuses the actions only the core may send (a timer's ticks) when a client sends them.
    static func admits(_ action: AppAction) -> Rejection? {
        guard action.isInternal else { return nil }
        return Rejection(code: TimerRejectCode.internalAction, message: "this action is the core's own; clients cannot send it")
    }
}
