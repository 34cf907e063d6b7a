import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

/// Ids only grow, and every id stays below `nextId`: so the last id a list can give is
/// `Int.max - 1`, and once `nextId` is `Int.max` an `add` is rejected (`overflow`) instead of
/// overflowing `nextId` and killing the core.
@Suite("The last id")
struct LastIdTests {
    @Test("the id just below Int.max is the last given; after it, add is rejected and changes nothing")
    func lastId() throws {
        var state = TodoState(items: [TodoItem(id: .max - 2, text: "a")], nextId: .max - 1)
        _ = try TodoReducer.reducer(&state, .add(text: "the last"), ())
        #expect(state.items.map(\.id) == [.max - 2, .max - 1])
        #expect(state.nextId == .max)
        let full = state
        #expect(throws: Rejection(code: "overflow", message: "no id is left for a new item: ids stop below 9223372036854775807")) {
            _ = try TodoReducer.reducer(&state, .add(text: "one more"), ())
        }
        #expect(state == full)
    }

    @Test("a bad text is still reported as such when no id is left")
    func textFirst() {
        var state = TodoState(nextId: .max)
        #expect(throws: Rejection(code: "empty_text", message: "an item needs some text")) {
            _ = try TodoReducer.reducer(&state, .add(text: " "), ())
        }
    }
}
