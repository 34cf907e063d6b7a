import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

/// An id at either end of Int's range names no item: every action that takes an id rejects it
/// as `unknown_item`, as it does any other unknown id. (The search for an item starts at a
/// guess made by subtracting the first item's id: `Int.min - 1` used to overflow and kill the
/// core, from one `{"toggle":{"id":-9223372036854775808}}`.)
@Suite("Ids at the ends of Int's range")
struct ExtremeIdTests {
    static let extremes = [Int.min, Int.min + 1, Int.max, Int.max - 1]

    /// Every action that names an item, for `id`.
    private func actions(naming id: Int) -> [AppAction] {
        [.todo(.toggle(id: id)), .todo(.edit(id: id, text: "x")), .todo(.remove(id: id)), .todo(.move(id: id, position: 1)),
         .timer(.start(id: id, seconds: 60))]
    }

    private func rejection(_ action: AppAction, on state: AppState) -> Rejection? {
        var copy = state
        do {
            _ = try AppReducer.reducer(&copy, action, AppEnvironment())
            return nil
        } catch {
            #expect(copy == state, "a rejected action must not change the state")
            return error
        }
    }

    @Test("on a list of one item, each action rejects the id as unknown", arguments: extremes)
    func oneItem(id: Int) {
        let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk")], nextId: 2))
        for action in actions(naming: id) {
            #expect(rejection(action, on: state) == Rejection(code: "unknown_item", message: "no item with id \(id)"), "\(action)")
        }
    }

    @Test("when the items' own ids are near either end, the far end is unknown and the items are found", arguments: [
        [Int.max - 2, Int.max - 1], [-5, Int.max - 1], [Int.min, Int.min + 1, 0],
    ])
    func farEnds(ids: [Int]) {
        let todo = TodoState(items: ids.map { TodoItem(id: $0, text: "item \($0)") }, nextId: Int.max)
        for id in Self.extremes where !ids.contains(id) {
            #expect(todo.index(of: id) == nil, "\(id) in \(ids)")
        }
        for (index, id) in ids.enumerated() {
            #expect(todo.index(of: id) == index, "\(id) in \(ids)")
        }
    }
}
