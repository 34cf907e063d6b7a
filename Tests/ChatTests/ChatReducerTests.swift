import ActorNode
import ActorNodeTesting
import Testing
@testable import ChatContract
@testable import ChatCore
import Wire

/// The chat room's logic, under TestStore: every change expected, every effect accounted for.
@Suite("Chat room reducer")
struct ChatReducerTests {
    private func makeStore(_ state: ChatState = ChatState(), seed: UInt64 = 7) -> TestStore<ChatState, ChatAction, ChatEnvironment> {
        TestStore(state: state, reducer: ChatCore.reducer, environment: ChatEnvironment(random: .seeded(seed)))
    }

    @Test("posts get numbers that are never reused, and count per author")
    func posts() async {
        let store = makeStore()
        await store.send(.post(author: "alice", text: "hi")) {
            $0.messages = [Message(id: 1, author: "alice", text: "hi")]
            $0.posts = ["alice": 1]
            $0.nextId = 2
        }
        await store.send(.post(author: "bob", text: "hello")) {
            $0.messages.append(Message(id: 2, author: "bob", text: "hello"))
            $0.posts["bob"] = 1
            $0.nextId = 3
        }
        await store.send(.clear) {
            $0.messages = []
            $0.posts = [:]
        }
        await store.send(.post(author: "alice", text: "again")) {
            $0.messages = [Message(id: 3, author: "alice", text: "again")]
            $0.posts = ["alice": 1]
            $0.nextId = 4
        }
        await store.finish()
    }

    @Test("rename moves an author's messages and count to the new name, merging with it")
    func rename() async {
        var state = ChatState()
        state.messages = [Message(id: 1, author: "alice", text: "a"), Message(id: 2, author: "carol", text: "c"), Message(id: 3, author: "alice", text: "b")]
        state.posts = ["alice": 2, "carol": 1]
        state.nextId = 4
        let store = makeStore(state)
        await store.send(.rename(from: "alice", to: "carol")) {
            $0.messages[0].author = "carol"
            $0.messages[2].author = "carol"
            $0.posts = ["carol": 3]
        }
        await store.finish()
    }

    @Test("an empty text, or a rename of an author with no messages, is rejected")
    func rejections() async {
        let store = makeStore()
        await store.send(.post(author: "alice", text: ""), rejectedWith: "empty_text")
        await store.send(.post(author: "alice", text: " \t "), rejectedWith: "empty_text")
        await store.send(.rename(from: "nobody", to: "x"), rejectedWith: "unknown_author")
        await store.finish()
    }

    @Test("/roll: the core posts a die from 1 to 6, drawn through the environment's randomness")
    func roll() async {
        let expected = RandomSource.seeded(7).int(in: 1 ... 6)
        let store = makeStore(seed: 7)
        await store.send(.post(author: "alice", text: "let me /roll")) {
            $0.messages = [Message(id: 1, author: "alice", text: "let me /roll")]
            $0.posts = ["alice": 1]
            $0.nextId = 2
        }
        await store.receive(.post(author: "dice", text: String(expected))) {
            $0.messages.append(Message(id: 2, author: "dice", text: String(expected)))
            $0.posts["dice"] = 1
            $0.nextId = 3
        }
        await store.finish()
    }

    @Test("replaying the journal never rolls again: the die is a recorded post")
    func replayDoesNotRoll() throws {
        // What a journal holds after a roll: the post, and the die the effect posted.
        let recorded: [ChatAction] = [.post(author: "alice", text: "/roll"), .post(author: "dice", text: "4")]
        var state = ChatState()
        // A source that fails the test if anything draws from it.
        let environment = ChatEnvironment(random: RandomSource(NoRandomness()))
        try ChatCore.reducer.replay(recorded, on: &state, environment: environment)
        #expect(state.messages.map(\.text) == ["/roll", "4"])
    }

    @Test("the state's JSON: messages, posts per author, and the next number")
    func json() throws {
        var state = ChatState()
        state.messages = [Message(id: 1, author: "alice", text: "hi")]
        state.posts = ["alice": 1]
        state.nextId = 2
        #expect(try WireJSON.string(state) == #"{"messages":[{"author":"alice","id":1,"text":"hi"}],"nextId":2,"posts":{"alice":1}}"#)
        #expect(try WireJSON.string(ChatAction.post(author: "a", text: "t")) == #"{"post":{"author":"a","text":"t"}}"#)
        #expect(try WireJSON.decode(ChatAction.self, from: Array(#"{"rename":{"from":"a","to":"b"}}"#.utf8)) == .rename(from: "a", to: "b"))
    }

    @Test("patches follow what changed: a post adds one message and one count")
    func patches() throws {
        var old = ChatState()
        old.messages = [Message(id: 1, author: "alice", text: "hi")]
        old.posts = ["alice": 1]
        old.nextId = 2
        var new = old
        new.messages.append(Message(id: 2, author: "bob", text: "yo"))
        new.posts["bob"] = 1
        new.nextId = 3
        let patch = try JSONPatch(from: old, to: new)
        var document = try JSONValue(encoding: old)
        try document.applyInPlace(patch)
        #expect(document == (try JSONValue(encoding: new)))
        #expect(patch.count == 3)
    }
}

/// A generator that must never be used.
private struct NoRandomness: RandomNumberGenerator, Sendable {
    mutating func next() -> UInt64 {
        Issue.record("replay drew a random number")
        return 0
    }
}
