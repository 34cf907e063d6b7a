import ActorNode
import ActorNodeTesting
import Testing
@testable import ChatContract
@testable import ChatCore
import Wire

/// Every message number stays below `nextId`, so the last number a room can give is
/// `Int.max - 1`; once `nextId` is `Int.max` a post is rejected (`overflow`) instead of
/// overflowing `nextId` and killing the core.
@Suite("Chat room: the last message number")
struct ChatLastNumberTests {
    @Test("the number just below Int.max is the last given; after it, a post is rejected and changes nothing")
    func lastNumber() async {
        var state = ChatState()
        state.nextId = .max - 1
        let store = TestStore(state: state, reducer: ChatCore.reducer, environment: ChatEnvironment(random: .seeded(1)))
        await store.send(.post(author: "alice", text: "the last")) {
            $0.messages = [Message(id: .max - 1, author: "alice", text: "the last")]
            $0.posts = ["alice": 1]
            $0.nextId = .max
        }
        await store.send(.post(author: "alice", text: "one more"), rejectedWith: "overflow")
        await store.send(.post(author: "bob", text: " "), rejectedWith: "empty_text")
        await store.finish()
    }
}
