import ActorNode
import Testing
@testable import ChatContract
@testable import ChatShell

/// The chat room's full screen, key by key on the kit's model: its view, and what its input
/// line does with `/rename`, `/clear`, `/quit` and plain lines.
@Suite("Chat room screen")
struct ChatRoomScreenTests {
    private func room(_ messages: [(String, String)], name: String = "alice") -> ScreenModel<ChatShell> {
        var state = ChatState()
        for (author, text) in messages {
            state.messages.append(Message(id: state.nextId, author: author, text: text))
            state.posts[author, default: 0] += 1
            state.nextId += 1
        }
        var model = ScreenModel<ChatShell>(socket: "/tmp/chat.sock", ui: ChatShell.ui(AttachOptions(["--name": name])))
        model.receive(state, revision: UInt64(messages.count))
        return model
    }

    private func enter(_ model: inout ScreenModel<ChatShell>, _ text: String) -> [ScreenModel<ChatShell>.Output] {
        for character in text { model.press(.character(character)) }
        return model.press(.enter)
    }

    @Test("the room: title with the name, messages newest at the bottom, other people's text escaped, the input line and the status")
    func view() {
        var model = room([("bob", "hi"), ("eve", "\u{1B}[2Jwiped\u{07}")])
        let lines = model.frame(rows: 8, columns: 60).lines.map(\.text)
        #expect(lines == [
            " chat · alice · 2 messages",
            "bob: hi",
            #"eve: \x1b[2Jwiped\x07"#,
            "", "", "",
            " > ",
            " /tmp/chat.sock · connected · r2 · 1 shell · ? help",
        ])
    }

    @Test("Enter posts the line under the name; /rename renames this shell's messages and takes the name; /clear; /quit")
    func commands() {
        var model = room([("alice", "first"), ("bob", "hi")])
        guard case let .send(action)? = enter(&model, "hello there").first else { Issue.record("no post"); return }
        #expect(action == .post(author: "alice", text: "hello there"))
        #expect(enter(&model, "/rename alicia").map(\.action) == [.rename(from: "alice", to: "alicia")])
        #expect(model.ui == "alicia")
        #expect(enter(&model, "again").map(\.action) == [.post(author: "alicia", text: "again")])
        #expect(enter(&model, "/clear").map(\.action) == [.clear])
        #expect(enter(&model, "/quit").map(\.isQuit) == [true])
        // A name without messages yet is taken without asking the core.
        var newcomer = room([("bob", "hi")], name: "zoe")
        #expect(enter(&newcomer, "/rename zed").isEmpty)
        #expect(newcomer.ui == "zed")
        #expect(newcomer.frame(rows: 8, columns: 50).lines[0].text == " chat · zed · 1 message")
        // Words that are not a command are posted as they are.
        #expect(enter(&newcomer, "/rename a b").map(\.action) == [.post(author: "zed", text: "/rename a b")])
    }

    @Test("--name, else $USER, else anonymous")
    func name() {
        #expect(ChatShell.ui(AttachOptions(["--name": "carol"])) == "carol")
        let user = AttachOptions().environment("USER")
        #expect(ChatShell.ui(AttachOptions()) == user ?? "anonymous")
    }
}

extension ScreenModel<ChatShell>.Output {
    var action: ChatAction? {
        if case let .send(action) = self { return action }
        return nil
    }

    var isQuit: Bool {
        if case .quit = self { return true }
        return false
    }
}
