import ActorNode
import TodoContract
import Wire

/// `drift-core`: a core whose state has a hand-written diff with the bug the framework's own
/// diff cannot have, for the tests of a shell that gets a patch it cannot apply: `winner`, an
/// optional the encoder leaves out while nil, is written as a `replace` when it comes, which
/// does not apply to a document without it. It keeps the to-do app's members, so that
/// `shell-client` follows it; `counter set N` sets the winner to N as well, and `add` adds an
/// item.
struct DriftState: Codable, Equatable, Sendable, Diffable {
    var todo = TodoState()
    var counter = CounterState()
    var timer = TimerState()
    var winner: Int?

    func appendPatch(from old: DriftState, at path: JSONPointer, to patch: inout JSONPatch) throws {
        try patch.appendField("todo", old.todo, todo, at: path)
        try patch.appendField("counter", old.counter, counter, at: path)
        if winner != old.winner {
            // The bug: a member that was not there cannot be replaced.
            patch.append(.replace(path.appending("winner"), try JSONValue(encoding: winner)))
        }
    }
}

/// The contract: the to-do app's actions, this state, and the to-do app's name.
enum Drift: AppContract {
    typealias State = DriftState
    typealias Action = AppAction
    static let name = "cama"
}

@main
enum DriftCore: CoreApp {
    typealias Contract = Drift
    static let summary = "a to-do core whose patches do not fit its state, for tests"
    static let initialState = DriftState()
    static let reducer = Reducer<DriftState, AppAction, Void> { state, action, _ in
        switch action {
        case let .todo(.add(text)):
            state.todo.items.append(TodoItem(id: state.todo.nextId, text: text))
            state.todo.nextId += 1
        case let .counter(.set(value)):
            state.counter.value = value
            state.winner = value
        default:
            break
        }
        return .none
    }

    static func environment(_ services: CoreServices) {}
}
