import ActorNode
import ChatContract

/// The room on a terminal (`chat-shell attach`): messages above, newest at the bottom, and a line
/// to write in below. The UI state is the name this shell posts as.
extension ChatShell: ScreenApp {
    static let attachOptions = [AttachOption("--name", "NAME", "the name to post as in the full screen (default $USER, else anonymous)")]

    static func ui(_ options: AttachOptions) -> String {
        options["--name"] ?? options.environment("USER") ?? "anonymous"
    }

    static func view(_ state: ChatState, _ name: String) -> Screen<Int> {
        Screen(header: [Row(" chat · \(name) · \(Wording.count(state.messages.count, "message"))", .bold)],
               list: .tail(state.messages, empty: "  (no messages: type one below)") { Row([Cell($0.author + ": ", .bold), Cell($0.text)]) })
    }

    static let input: Prompt<ChatShell>? = Prompt("> ", help: [
        ("Enter", "post the line"), ("/rename NEW", "rename your messages and post as NEW"),
        ("/clear", "remove every message"), ("/quit", "leave (Ctrl-C too)"),
    ]) { text, screen in
        let words = text.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("/quit", 1): return [.quit]
        case ("/clear", 1): return [.send(.clear)]
        case ("/rename", 2):
            let old = screen.ui
            screen.ui = words[1]
            return screen.state.posts[old] == nil ? [] : [.send(.rename(from: old, to: words[1]))]
        default: return [.send(.post(author: screen.ui, text: text))]
        }
    }
}
