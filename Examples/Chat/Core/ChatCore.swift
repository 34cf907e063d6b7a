import ActorNode
import ChatContract
import Wire

/// What the room's logic uses of the world: randomness, for dice rolls.
struct ChatEnvironment: Sendable {
    var random: RandomSource
}

/// The chat room's core: its reducer, and what the host needs to know.
@main
enum ChatCore: CoreApp {
    typealias Contract = Chat
    static let summary = "the core of a chat room. Keeps its messages and serves chat shells."
    static let initialState = ChatState()

    static func environment(_ services: CoreServices) -> ChatEnvironment {
        ChatEnvironment(random: services.random)
    }

    static let reducer = Reducer<ChatState, ChatAction, ChatEnvironment> { state, action, environment throws(Rejection) in
        switch action {
        case let .post(author, text):
            guard !author.isEmpty, author.utf8.count <= 64 else { throw Rejection(code: "bad_author", message: "an author is 1 to 64 bytes") }
            guard text.utf8.count <= 4000 else { throw Rejection(code: "too_long", message: "a message is at most 4000 bytes") }
            guard text.contains(where: { !$0.isWhitespace }) else { throw Rejection(code: "empty_text", message: "a message needs some text") }
            // Every number stays below nextId, so Int.max itself is never given.
            guard state.nextId < Int.max else { throw Rejection(code: "overflow", message: "no number is left for a new message") }
            state.messages.append(Message(id: state.nextId, author: author, text: text))
            state.nextId += 1
            state.posts[author, default: 0] += 1
            // The roll is an effect: its result comes back as a post, which the journal keeps,
            // so a replay shows the same number without rolling again.
            guard text.contains("/roll") else { return .none }
            return .run { .post(author: "dice", text: String(environment.random.int(in: 1 ... 6))) }
        case let .rename(from, to):
            guard let count = state.posts[from] else { throw Rejection(code: "unknown_author", message: "\(from) has no messages") }
            guard !to.isEmpty, to.utf8.count <= 64 else { throw Rejection(code: "bad_author", message: "an author is 1 to 64 bytes") }
            for index in state.messages.indices where state.messages[index].author == from {
                state.messages[index].author = to
            }
            state.posts[from] = nil
            state.posts[to, default: 0] += count
        case .clear:
            state.messages = []
            state.posts = [:]
        }
        return .none
    }
}
