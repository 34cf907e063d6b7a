import ActorNode
import Testing
@testable import TodoContract
@testable import Wire

@Suite("Typed diffs")
struct DiffableTests {
    private func state(_ texts: [(Int, String, Bool)], nextId: Int) -> AppState {
        AppState(todo: TodoState(items: texts.map { TodoItem(id: $0.0, text: $0.1, done: $0.2) }, nextId: nextId))
    }

    @Test("one toggled item in a long list is one small replace")
    func toggleIsOneReplace() throws {
        let old = state((1 ... 500).map { ($0, "item \($0)", false) }, nextId: 501)
        var new = old
        new.todo.items[250].done = true
        #expect(try JSONPatch(from: old, to: new) == [.replace(JSONPointer("/todo/items/250/done")!, .bool(true))])
    }

    @Test("an added item is one add and one replace of nextId")
    func addIsSmall() throws {
        let old = state([(1, "a", false)], nextId: 2)
        var new = old
        new.todo.items.append(TodoItem(id: 2, text: "b"))
        new.todo.nextId = 3
        #expect(try JSONPatch(from: old, to: new) == [
            .add(JSONPointer("/todo/items/1")!, try JSONValue(encoding: TodoItem(id: 2, text: "b"))),
            .replace(JSONPointer("/todo/nextId")!, .integer(3)),
        ])
    }

    @Test("clearing a long list replaces the list instead of removing items one by one")
    func clearIsOneReplace() throws {
        let old = state((1 ... 100).map { ($0, "x", false) }, nextId: 101)
        var new = old
        new.todo.items = []
        #expect(try JSONPatch(from: old, to: new) == [.replace(JSONPointer("/todo/items")!, .array([]))])
    }

    @Test("a state without granular diffs is replaced whole when it changed")
    func defaultReplacesWhole() throws {
        #expect(try 5.patch(from: 4) == [.replace(JSONPointer(), .integer(5))])
        #expect(try 5.patch(from: 5).isEmpty)
    }

    @Test("the typed patch takes the old state's JSON to the new state's JSON, for many random edits")
    func typedPatchMatchesJSON() throws {
        var random = SeededRandom(seed: 99)
        var current = AppState()
        for _ in 0 ..< 500 {
            let next = Self.randomEdit(of: current, using: &random)
            var json = try JSONValue(encoding: current)
            // Through JSON text, as a client receives it.
            let patch = try WireJSON.decode(JSONPatch.self, from: WireJSON.encode(JSONPatch(from: current, to: next)))
            try json.apply(patch)
            #expect(json == (try JSONValue(encoding: next)))
            current = next
        }
    }

    static func randomEdit(of state: AppState, using random: inout SeededRandom) -> AppState {
        var todo = state.todo
        var timer = state.timer
        var counter = state.counter
        let count = todo.items.count
        switch random.next() % 11 {
        case 8 where count > 0:
            let item = todo.items[Int(random.next() % UInt64(count))]
            timer = TimerState(item: item.id, running: true, remaining: 60, deadline: 1_767_225_660.5)
        case 9:
            timer = timer.running ? TimerState(item: timer.item, running: true, remaining: timer.remaining - 1, deadline: timer.deadline) : .idle
            if random.next() % 3 == 0 { timer = .idle }
        case 10:
            counter.value = Int(random.next() % 21) - 10
            if count > 0 { todo.items[Int(random.next() % UInt64(count))].pomodoros += 1 }
        case 0, 1, 2:
            todo.items.insert(TodoItem(id: todo.nextId, text: "item \(todo.nextId)"), at: Int(random.next() % UInt64(count + 1)))
            todo.nextId += 1
        case 3 where count > 0:
            todo.items.remove(at: Int(random.next() % UInt64(count)))
        case 4 where count > 0:
            todo.items[Int(random.next() % UInt64(count))].done.toggle()
        case 5 where count > 0:
            todo.items[Int(random.next() % UInt64(count))].text = "edited \(random.next() % 1000)"
        case 6 where count > 1:
            let item = todo.items.remove(at: Int(random.next() % UInt64(count)))
            todo.items.insert(item, at: Int(random.next() % UInt64(count)))
        case 7 where random.next() % 6 == 0:
            todo.items = []
        default:
            break
        }
        return AppState(todo: todo, counter: counter, timer: timer)
    }
}
