import Testing
@testable import ShellClient
@testable import Wire

@Suite("State output")
struct StateTextTests {
    private let state = AppState(todo: TodoState(items: [
        TodoItem(id: 2, text: "oat milk"),
        TodoItem(id: 10, text: "call mom", done: true),
    ], nextId: 11))

    @Test("people get a header and one aligned line per item")
    func human() {
        #expect(StateText.render(state, revision: 7) == """
        revision 7: 2 items, 1 done
           2 [ ] oat milk
          10 [x] call mom

        """)
        #expect(StateText.render(AppState(), revision: 0) == "revision 0: no items\n")
    }

    @Test("programs get one JSON object per line: the whole state plus its revision")
    func json() throws {
        let line = StateText.json(state, revision: 7)
        #expect(line.hasSuffix("\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(line == #"{"revision":7,"todo":{"items":[{"done":false,"id":2,"text":"oat milk"},{"done":true,"id":10,"text":"call mom"}],"nextId":11}}"# + "\n")
        let parsed = try WireJSON.decode(JSONValue.self, from: Array(line.utf8))
        #expect(parsed.objectValue?["revision"] == .integer(7))
    }
}
