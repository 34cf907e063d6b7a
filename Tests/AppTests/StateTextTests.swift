import Testing
@testable import ActorNode
@testable import ShellClient
@testable import TodoContract
@testable import Wire

@Suite("State output")
struct StateTextTests {
    private let state = AppState(todo: TodoState(items: [
        TodoItem(id: 2, text: "oat milk"),
        TodoItem(id: 10, text: "call mom", done: true, pomodoros: 2),
    ], nextId: 11))

    @Test("people get a header and one aligned line per item")
    func human() {
        #expect(StateText.render(state, revision: 7) == """
        revision 7: 2 items, 1 done
           2 [ ] oat milk
          10 [x] call mom (2 pomodoros)
        counter: 0
        timer: idle

        """)
        #expect(StateText.render(AppState(), revision: 0) == "revision 0: no items\ncounter: 0\ntimer: idle\n")
    }

    @Test("ids wider than the largest (negative ones, from a state no reducer makes) are aligned, not padded by a negative count")
    func negativeIds() {
        let odd = AppState(todo: TodoState(items: [TodoItem(id: -100, text: "a"), TodoItem(id: 5, text: "b")], nextId: 6))
        #expect(StateText.render(odd, revision: 1).hasPrefix("""
        revision 1: 2 items, 0 done
          -100 [ ] a
             5 [ ] b

        """))
    }

    @Test("a running focus shows its item and the time left")
    func timerLine() {
        var focused = state
        focused.counter.value = -3
        focused.timer = TimerState(item: 2, running: true, remaining: 1453, deadline: 1_767_226_000)
        #expect(StateText.render(focused, revision: 8).hasSuffix("counter: -3\ntimer: focus on 2, 24:13 left\n"))
        #expect(StateText.clock(3725) == "1:02:05")
        #expect(StateText.clock(59) == "0:59")
    }

    @Test("programs get one JSON object per line: the whole state plus its revision")
    func json() throws {
        let line = StateJSON.line(state, revision: 7)
        #expect(line.hasSuffix("\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(line == #"{"counter":{"value":0},"revision":7,"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[{"done":false,"id":2,"pomodoros":0,"text":"oat milk"},{"done":true,"id":10,"pomodoros":2,"text":"call mom"}],"nextId":11}}"# + "\n")
        let parsed = try WireJSON.decode(JSONValue.self, from: Array(line.utf8))
        #expect(parsed.objectValue?["revision"] == .integer(7))
    }
}
