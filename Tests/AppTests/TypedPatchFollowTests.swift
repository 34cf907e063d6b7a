import Testing
@testable import ActorNode
import ActorNodeTesting
@testable import TodoContract
@testable import Wire

/// A full-screen shell keeps its typed state up to date with each patch in place
/// (``Patchable``) instead of decoding the whole state: after any change the to-do state can
/// make, following its patch gives the new state exactly.
@Suite("Typed state follows patches")
struct TypedPatchFollowTests {
    @Test("random changes of a list of 300 items: the typed state after each patch is the new state", arguments: [1, 2, 3])
    func followsEveryChange(seed: UInt64) async throws {
        try await offThePool { try Self.run(seed: seed) }
    }

    private static func run(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(max(count, 1))) }
        var state = AppState(todo: TodoState(items: (1 ... 300).map { TodoItem(id: $0, text: "item \($0)") }, nextId: 301))
        var typed = state
        var document = try JSONValue(encoding: state)
        var followed = 0
        for step in 1 ... 2000 {
            let old = state
            let count = state.todo.items.count
            switch random.next() % 9 {
            case 0:
                state.todo.items.replaceSubrange(count ..< count, with: [TodoItem(id: state.todo.nextId, text: "new \(step)")])
                state.todo.nextId += 1
            case 1 where count > 0:
                let index = pick(count)
                var item = state.todo.items[index]
                item.done.toggle()
                state.todo.items.replaceSubrange(index ..< index + 1, with: [item])
            case 2 where count > 0:
                let index = pick(count)
                state.todo.items.replaceSubrange(index ..< index + 1, with: [])
            case 3 where count > 1:
                let from = pick(count)
                let item = state.todo.items[from]
                state.todo.items.replaceSubrange(from ..< from + 1, with: [])
                let to = pick(count - 1)
                state.todo.items.replaceSubrange(to ..< to, with: [item])
            case 4 where count > 0:
                let index = pick(count)
                var item = state.todo.items[index]
                item.text = "edited \(step) \"é\""
                item.pomodoros += 1
                state.todo.items.replaceSubrange(index ..< index + 1, with: [item])
            case 5:
                state.counter.value += Int(random.next() % 7) - 3
            case 6:
                state.timer = TimerState(item: count > 0 ? state.todo.items[pick(count)].id : nil, running: true, remaining: Int(random.next() % 600), deadline: 1_800_000_000.5)
            case 7 where random.next() % 30 == 0:
                state.todo = TodoState(items: [], nextId: state.todo.nextId)
            default:
                state.timer = .idle
            }
            let patch = try JSONPatch(from: old, to: state)
            try document.applyInPlace(patch)
            if patch.isFollowableInPlace {
                for operation in patch {
                    try typed.patch(at: operation.path.tokens[...], operation: operation.op, document: document)
                }
                followed += 1
            } else {
                typed = try document.decode(as: AppState.self)
            }
            guard typed == state else {
                Issue.record("seed \(seed), step \(step): after \(patch.map(\.json)) the typed state is not the new state")
                return
            }
        }
        // Most changes are followed in place, not decoded again.
        #expect(followed > 1500, "only \(followed) of 2000 patches were followed in place")
    }
}
