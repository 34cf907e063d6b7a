import ActorNode
import TodoContract

/// `trap-shell`: a full screen of the to-do app's contract whose `!` key traps (an integer
/// overflow in the app's code, as a bug would), for the test that a crash gives the terminal
/// back.
@main
enum TrapShell: ScreenApp {
    typealias Contract = Todo
    static let summary = "a full screen that traps on '!', for tests"
    static let verbs: [Verb<AppAction>] = []

    static func render(_ state: AppState, revision: UInt64) -> String {
        "revision \(revision)\n"
    }

    static func view(_ state: AppState, _: Void) -> Screen<Int> {
        Screen(header: [Row(" trap-shell · press ! to trap", .bold)], list: .selecting(state.todo.items) { item, _ in Row(item.text) })
    }

    static let keys: [KeyBinding<TrapShell>] = [
        KeyBinding("!", help: "trap") { screen in
            var value = Int.max - 1
            value += screen.count + 2
            return value == 0 ? [.quit] : []
        },
    ]
}

