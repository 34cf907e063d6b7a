import Testing
@testable import TodoContract
@testable import Wire

@Suite("To-do contract JSON")
struct ContractJSONTests {
    private func json(_ value: some Encodable) throws -> String {
        try WireJSON.string(value)
    }

    @Test("every action has the hand-writable JSON of the design", arguments: [
        (TodoAction.add(text: "buy milk"), #"{"add":{"text":"buy milk"}}"#),
        (.clear, #"{"clear":{}}"#),
        (.remove(id: 3), #"{"remove":{"id":3}}"#),
        (.toggle(id: 3), #"{"toggle":{"id":3}}"#),
        (.edit(id: 3, text: "oat milk"), #"{"edit":{"id":3,"text":"oat milk"}}"#),
        (.move(id: 3, position: 1), #"{"move":{"id":3,"position":1}}"#),
    ])
    func actionJSON(action: TodoAction, expected: String) throws {
        #expect(try json(AppAction.todo(action)) == expected)
        #expect(try WireJSON.decode(AppAction.self, from: Array(expected.utf8)) == .todo(action))
    }

    @Test("an action without arguments may be a bare string")
    func bareString() throws {
        #expect(try WireJSON.decode(AppAction.self, from: Array(#""clear""#.utf8)) == .todo(.clear))
    }

    @Test("an unknown or malformed action says what was expected")
    func readableErrors() {
        let cases: [(String, String)] = [
            (#"{"bogus":{}}"#, "unknown action 'bogus' (expected one of add, clear, remove, toggle, edit, move, counter, timer, pick)"),
            (#"{"counter":"double"}"#, "at counter: unknown counter action 'double'"),
            (#"{"add":{"text":1}}"#, "at add.text: expected a string"),
            (#"{"move":{"id":1}}"#, #"at move: missing "position""#),
            (#""add""#, "add needs a payload object"),
        ]
        for (text, expected) in cases {
            do {
                _ = try WireJSON.decode(AppAction.self, from: Array(text.utf8))
                Issue.record("decoded \(text)")
            } catch let error as DecodingError {
                #expect(error.conciseDescription.hasPrefix(expected), "\(error.conciseDescription)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("a name from the document is quoted on one line: line breaks and control characters in it are escaped", arguments: [
        (#"{"cou\nter":{"decrement":{}}}"#, #"unknown action 'cou\u000ater' (expected one of add, clear, remove, toggle, edit, move, counter, timer, pick)"#),
        (#"{"counter":"up\r\u0085\u2028"}"#, #"at counter: unknown counter action 'up\u000d\u0085\u2028' (expected one of increment, decrement, reset, set, randomize)"#),
        (#"{"a\u0000":1,"b":2}"#, #"expected action as an object with exactly one key (one of add, clear, remove, toggle, edit, move, counter, timer, pick); found keys: a\u0000, b"#),
    ])
    func namesOnOneLine(text: String, expected: String) {
        do {
            _ = try WireJSON.decode(AppAction.self, from: Array(text.utf8))
            Issue.record("decoded \(text)")
        } catch {
            #expect(describeDecodingFailure(error) == expected)
        }
    }

    @Test("the state's JSON is the design's shape")
    func stateJSON() throws {
        let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk")], nextId: 2))
        #expect(try json(state) == #"{"counter":{"value":0},"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[{"done":false,"id":1,"pomodoros":0,"text":"buy milk"}],"nextId":2}}"#)
        #expect(try WireJSON.decode(AppState.self, from: WireJSON.encode(state)) == state)
    }

    @Test("state JSON from before the counter, the timer and pomodoros still decodes, with defaults")
    func olderStateJSON() throws {
        let older = #"{"todo":{"items":[{"done":true,"id":1,"text":"buy milk"}],"nextId":2}}"#
        let state = try WireJSON.decode(AppState.self, from: Array(older.utf8))
        #expect(state == AppState(todo: TodoState(items: [TodoItem(id: 1, text: "buy milk", done: true)], nextId: 2)))
        #expect(state.todo.items[0].pomodoros == 0)
        #expect(state.timer == .idle)
    }

    @Test("counter and timer actions nest under their feature; pick stands alone", arguments: [
        (AppAction.counter(.increment), #"{"counter":{"increment":{}}}"#),
        (.counter(.set(value: -5)), #"{"counter":{"set":{"value":-5}}}"#),
        (.counter(.randomize), #"{"counter":{"randomize":{}}}"#),
        (.timer(.start(id: 3, seconds: 60)), #"{"timer":{"start":{"id":3,"seconds":60}}}"#),
        (.timer(.stop), #"{"timer":{"stop":{}}}"#),
        (.timer(.pick), #"{"pick":{}}"#),
        (.timer(.tick(at: 1.5)), #"{"timer":{"tick":{"at":1.5}}}"#),
    ])
    func featureActionJSON(action: AppAction, expected: String) throws {
        #expect(try json(action) == expected)
        #expect(try WireJSON.decode(AppAction.self, from: Array(expected.utf8)) == action)
    }

    @Test("the short forms decode too")
    func shortForms() throws {
        func decode(_ text: String) throws -> AppAction { try WireJSON.decode(AppAction.self, from: Array(text.utf8)) }
        #expect(try decode(#"{"counter":"reset"}"#) == .counter(.reset))
        #expect(try decode(#"{"timer":"stop"}"#) == .timer(.stop))
        #expect(try decode(#""pick""#) == .timer(.pick))
        #expect(try decode(#"{"timer":{"start":{"id":2}}}"#) == .timer(.start(id: 2, seconds: nil)))
        #expect(AppAction.timer(.tick(at: 1)).isInternal)
        #expect(!AppAction.timer(.pick).isInternal && !AppAction.counter(.randomize).isInternal)
    }
}
