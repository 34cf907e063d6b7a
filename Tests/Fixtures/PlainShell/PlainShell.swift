import ActorNode
import TodoContract

/// `plain-shell`: a shell of the to-do app's contract with no full screen, for the tests of the
/// line shell: on a terminal its `attach` edits lines (``LineEditor``), from a pipe it reads
/// plain lines. It adds items, and shows them one per line.
@main
enum PlainShell: ShellApp {
    typealias Contract = Todo
    static let summary = "a line shell of the to-do contract, for tests"
    static let verbs: [Verb<AppAction>] = [
        Verb("add", usage: "add TEXT", "add an item", example: #"send add "buy milk""#) { words in .todo(.add(text: try words.text())) },
    ]

    static func render(_ state: AppState, revision: UInt64) -> String {
        "revision \(revision): \(Wording.count(state.todo.items.count, "item"))\n" + state.todo.items.map { "  \($0.id) \(PeerText.escaped($0.text))\n" }.joined()
    }
}

