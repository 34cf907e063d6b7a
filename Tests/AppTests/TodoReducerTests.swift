import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import TodoContract
@testable import Wire

@Suite("To-do reducer")
struct TodoReducerTests {
    private func apply(_ actions: [TodoAction], to start: TodoState = TodoState()) throws(Rejection) -> TodoState {
        var state = start
        for action in actions {
            _ = try TodoReducer.reducer(&state, action, ())
        }
        return state
    }

    private func rejection(_ action: TodoAction, on state: TodoState) -> Rejection? {
        var copy = state
        do {
            _ = try TodoReducer.reducer(&copy, action, ())
            return nil
        } catch {
            #expect(copy == state, "a rejected action must not change the state")
            return error
        }
    }

    private var three: TodoState {
        get throws { try apply([.add(text: "a"), .add(text: "b"), .add(text: "c")]) }
    }

    @Test("add appends at the end with the next id")
    func add() throws {
        let state = try three
        #expect(state.items.map(\.text) == ["a", "b", "c"])
        #expect(state.items.map(\.id) == [1, 2, 3])
        #expect(state.items.allSatisfy { !$0.done })
        #expect(state.nextId == 4)
    }

    @Test("ids are never reused, even after remove and clear")
    func idsNeverReused() throws {
        var state = try apply([.remove(id: 3)], to: three)
        state = try apply([.add(text: "d")], to: state)
        #expect(state.items.map(\.id) == [1, 2, 4])
        state = try apply([.clear, .add(text: "e")], to: state)
        #expect(state.items.map(\.id) == [5])
    }

    @Test("toggle flips done; edit changes text; both keep the position")
    func toggleAndEdit() throws {
        let state = try apply([.toggle(id: 2), .edit(id: 3, text: "oat milk")], to: three)
        #expect(state.items.map(\.done) == [false, true, false])
        #expect(state.items.map(\.text) == ["a", "b", "oat milk"])
        #expect(try apply([.toggle(id: 2)], to: state).items[1].done == false)
    }

    @Test("move puts the item at a 1-based position", arguments: [
        (3, 1, ["c", "a", "b"]), (1, 3, ["b", "c", "a"]), (2, 2, ["a", "b", "c"]), (1, 2, ["b", "a", "c"]),
    ])
    func move(id: Int, position: Int, expected: [String]) throws {
        #expect(try apply([.move(id: id, position: position)], to: three).items.map(\.text) == expected)
    }

    @Test("remove and clear")
    func removeAndClear() throws {
        #expect(try apply([.remove(id: 2)], to: three).items.map(\.text) == ["a", "c"])
        #expect(try apply([.clear], to: three).items.isEmpty)
        #expect(try apply([.clear], to: TodoState()).items.isEmpty)
    }

    @Test("unknown ids are rejected with the id named")
    func unknownItem() throws {
        let state = try three
        for action in [TodoAction.remove(id: 9), .toggle(id: 9), .edit(id: 9, text: "x"), .move(id: 9, position: 1)] {
            #expect(rejection(action, on: state) == Rejection(code: "unknown_item", message: "no item with id 9"))
        }
    }

    @Test("positions outside the list are rejected with the range")
    func badPosition() throws {
        let state = try three
        #expect(rejection(.move(id: 1, position: 4), on: state) == Rejection(code: "bad_position", message: "position 4 is out of range 1...3"))
        #expect(rejection(.move(id: 1, position: 0), on: state)?.code == "bad_position")
        #expect(rejection(.move(id: 1, position: -2), on: state)?.code == "bad_position")
    }

    @Test("text must be present, one line, and not huge", arguments: [
        ("", "empty_text"), ("   ", "empty_text"), ("\t", "empty_text"),
        ("two\nlines", "invalid_text"), ("bell\u{7}", "invalid_text"), ("line\u{2028}separator", "invalid_text"),
        (String(repeating: "x", count: 1001), "invalid_text"),
    ])
    func invalidText(text: String, code: String) throws {
        let state = try three
        #expect(rejection(.add(text: text), on: state)?.code == code)
        #expect(rejection(.edit(id: 1, text: text), on: state)?.code == code)
    }

    @Test("plain ASCII text (read from its bytes) is held to the same rules: 1000 characters, one of them not a space")
    func asciiText() throws {
        let state = try apply([.add(text: String(repeating: "x", count: 1000)), .add(text: " ~ "), .add(text: "  a")])
        #expect(state.items.count == 3)
        let tooLong = try #require(rejection(.add(text: String(repeating: "x", count: 1001)), on: state))
        #expect(tooLong == Rejection(code: "invalid_text", message: "item text is 1001 characters; the limit is 1000 characters (and 4000 bytes)"))
        #expect(rejection(.add(text: "     "), on: state) == Rejection(code: "empty_text", message: "an item needs some text"))
        #expect(rejection(.add(text: "tab\there"), on: state)?.code == "invalid_text")
        #expect(rejection(.add(text: "del\u{7F}"), on: state)?.code == "invalid_text")
    }

    @Test("wide and accented text is fine, up to 1000 characters")
    func unicodeText() throws {
        let state = try apply([.add(text: "買い物 🥛 café"), .add(text: String(repeating: "é", count: 1000))])
        #expect(state.items.count == 2)
    }

    @Test("the root reducer hands to-do actions to the to-do reducer")
    func rootReducer() throws {
        var state = AppState()
        _ = try AppReducer.reducer(&state, .todo(.add(text: "x")), AppEnvironment())
        #expect(state.todo.items.map(\.text) == ["x"])
    }
}
