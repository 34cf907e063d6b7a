import Wire

/// The chat room's contract: its state, its actions, and its name (the socket at
/// `$CHAT_SOCKET`, `$XDG_RUNTIME_DIR/chat/core.sock`, ...).
public enum Chat: AppContract {
    public typealias State = ChatState
    public typealias Action = ChatAction
    public static let name = "chat"
}

/// One message of the room; the core numbers them and never reuses a number.
public struct Message: Codable, Sendable, Equatable, Identifiable {
    public var id: Int
    public var author: String
    public var text: String

    public init(id: Int, author: String, text: String) {
        (self.id, self.author, self.text) = (id, author, text)
    }
}

/// The room: its messages, how many each author has posted, and the next message's number.
public struct ChatState: Codable, Sendable, Equatable {
    public var messages: [Message] = []
    public var posts: [String: Int] = [:]
    public var nextId = 1

    public init() {}
}

/// What a chat shell asks: `{"post":{"author":"alice","text":"hi"}}`,
/// `{"rename":{"from":"alice","to":"carol"}}`, `{"clear":{}}`.
public enum ChatAction: Codable, Sendable, Equatable {
    case post(author: String, text: String)
    case rename(from: String, to: String)
    case clear
}
