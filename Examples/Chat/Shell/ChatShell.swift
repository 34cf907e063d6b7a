import ActorNode
import ChatContract

/// The chat room's shell: its verbs, and how the room reads as text.
@main
enum ChatShell: ShellApp {
    typealias Contract = Chat
    static let summary = "a shell of the chat room, for people and for scripts."
    static let verbs: [Verb<ChatAction>] = [
        Verb("post", usage: "post AUTHOR TEXT", "post a message (/roll rolls a die)", example: #"send post alice "hi""#) { words in
            .post(author: try words.word(), text: try words.text())
        },
        Verb("rename", usage: "rename OLD NEW", "give an author's messages a new name", example: "send rename alice carol") { words in
            let (from, to) = (try words.word(), try words.word())
            try words.end()
            return .rename(from: from, to: to)
        },
        Verb("clear", "remove every message", example: "send clear") { words in
            try words.end()
            return .clear
        },
    ]

    static func render(_ state: ChatState, revision: UInt64) -> String {
        let lines = state.messages.map { "\(PeerText.escaped($0.author)): \(PeerText.escaped($0.text))\n" }
        let counts = state.posts.keys.sorted().map { "\(PeerText.escaped($0)) \(state.posts[$0]!)" }
        return "revision \(revision): \(Wording.count(state.messages.count, "message"))\n" + lines.joined() + (counts.isEmpty ? "" : "posts: " + counts.joined(separator: ", ") + "\n")
    }

    /// `watch` prints each new message as `author: text`.
    static func renderChange(from old: ChatState?, to new: ChatState, revision: UInt64) -> String {
        let seen = old?.messages.last?.id ?? 0
        return new.messages.filter { $0.id > seen }.map { "\(PeerText.escaped($0.author)): \(PeerText.escaped($0.text))\n" }.joined()
    }
}
