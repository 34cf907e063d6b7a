import ActorNode
import TodoContract
import Wire

/// `trap-core`: a core of the to-do app's contract whose reducer traps on purpose, for the tests
/// of what a crash costs (one crash, then `crashed_core`; ``Quarantine``). It adds items and
/// sets the counter, and ignores every other action:
/// - `add` "trap" overflows an integer in the reducer;
/// - `add` "trap later" is applied, and its effect sends `counter` `set` -1, on which the
///   reducer overflows;
/// - `add` "recurse" recurses until the thread's stack is exhausted (SIGSEGV).
/// The to-do app's `shell-client` works with it, since the contract is the same.
@main
enum TrapCore: CoreApp {
    typealias Contract = Todo
    static let summary = "a to-do core that traps on purpose, for tests"
    static let initialState = AppState()
    static let reducer = Reducer<AppState, AppAction, Void> { state, action, _ in
        switch action {
        case let .todo(.add(text)):
            state.counter.value = overflowing(text == "trap") + (text == "recurse" ? depth(1) : 0)
            let id = state.todo.nextId
            state.todo.items.replaceSubrange(state.todo.items.count ..< state.todo.items.count, with: [TodoItem(id: id, text: text)])
            state.todo.nextId += 1
            return text == "trap later" ? .send(.counter(.set(value: -1))) : .none
        case let .counter(.set(value)):
            state.counter.value = overflowing(value < 0) + value
            return .none
        default:
            return .none
        }
    }

    static func environment(_ services: CoreServices) {}

    /// Does not return (a stack holds far fewer frames than the levels it would take): each call
    /// takes a frame of the stack until there is none left.
    private static func depth(_ level: Int) -> Int {
        guard level < Int.max else { return 0 }
        var frame = [Int](repeating: level, count: 16)
        frame[level % 16] = depth(level + 1)
        return frame.reduce(0, &+)
    }

    /// 0, or an addition that overflows (the kind of bug that traps in an app) when `trap`.
    private static func overflowing(_ trap: Bool) -> Int {
        var value = Int.max
        value += trap ? 1 : 0
        return value - Int.max
    }
}
