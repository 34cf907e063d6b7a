import ActorNode
import ActorNodeTesting
import Testing
@testable import CoreDaemon
import TodoContract
import Wire

/// The to-do list through the composed root reducer, exhaustively: every change is stated,
/// and no effect may run.
@Suite("To-do feature")
struct TodoFeatureTests {
    @Test("add, toggle, edit, move, remove, clear: exactly these changes and no effects")
    func everyAction() async {
        let store = TestStore(state: AppState(), reducer: AppReducer.reducer, environment: AppEnvironment(time: TestTime()))
        await store.send(.todo(.add(text: "buy milk"))) {
            $0.todo.items = [TodoItem(id: 1, text: "buy milk")]
            $0.todo.nextId = 2
        }
        await store.send(.todo(.add(text: "call mom"))) {
            $0.todo.items.append(TodoItem(id: 2, text: "call mom"))
            $0.todo.nextId = 3
        }
        await store.send(.todo(.toggle(id: 1))) { $0.todo.items[0].done = true }
        await store.send(.todo(.edit(id: 2, text: "call dad"))) { $0.todo.items[1].text = "call dad" }
        await store.send(.todo(.move(id: 2, position: 1))) {
            $0.todo.items = [TodoItem(id: 2, text: "call dad"), TodoItem(id: 1, text: "buy milk", done: true)]
        }
        await store.send(.todo(.remove(id: 1))) { $0.todo.items = [TodoItem(id: 2, text: "call dad")] }
        await store.send(.todo(.toggle(id: 1)), rejectedWith: "unknown_item")
        await store.send(.todo(.add(text: " ")), rejectedWith: "empty_text")
        await store.send(.todo(.clear)) { $0.todo.items = [] }
        await store.send(.todo(.add(text: "after clear"))) {
            $0.todo.items = [TodoItem(id: 3, text: "after clear")]
            $0.todo.nextId = 4
        }
        #expect(store.activeEffectCount == 0)
        await store.finish()
    }
}
