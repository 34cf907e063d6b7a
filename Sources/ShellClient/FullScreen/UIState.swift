import ActorNode
import TodoContract
import Wire

/// Everything the full-screen shell shows that is not the core's state: the selection, what
/// the keys are doing (typing a text, answering a question, reading the help), the last message,
/// and the connection.
struct UIState: Equatable, Sendable {
    enum Mode: Equatable, Sendable {
        case normal
        /// Typing the text of a new item, or a new text for item `id`.
        case input(InputLine)
        /// "Clear all N items? (y/n)"
        case confirmClear
        case help
    }

    /// A line of text being edited, with its cursor (an index into `text`).
    struct InputLine: Equatable, Sendable {
        enum Purpose: Equatable, Sendable {
            case add
            case edit(id: Int)
        }

        var purpose: Purpose
        var text: [Character] = []
        var cursor = 0
    }

    enum Connection: Equatable, Sendable {
        case connected
        case reconnecting(String)
    }

    struct Message: Equatable, Sendable {
        enum Kind: Equatable, Sendable { case info, error }
        var text: String
        var kind: Kind
    }

    /// The selected item, by id (so it stays on the same item when others come and go), and
    /// its index in the list.
    var selectedID: Int?
    var selectedIndex = 0
    /// The first list row shown.
    var scroll = 0
    /// The first line of the help's body shown, when the help is taller than the screen.
    var helpScroll = 0
    var mode = Mode.normal
    /// Shown in the status line until the next key.
    var message: Message?
    var connection = Connection.connected
    var shells = 1
    var socket: String

    init(socket: String) {
        self.socket = socket
    }

    /// Keeps the selection on the same item after the list changed; when that item is gone,
    /// on the one now at its place (the first one, to begin with).
    mutating func follow<Items: RandomAccessCollection<TodoItem>>(_ items: Items) where Items.Index == Int {
        // Where it was, usually (a change elsewhere in the list): no search of the list.
        if let id = selectedID, selectedIndex < items.count, items[selectedIndex].id == id { return }
        if let id = selectedID, let index = items.firstIndex(where: { $0.id == id }) {
            selectedIndex = index
            return
        }
        guard !items.isEmpty else {
            selectedID = nil
            selectedIndex = 0
            return
        }
        selectedIndex = min(max(0, selectedIndex), items.count - 1)
        selectedID = items[selectedIndex].id
    }

    /// Moves the selection by `delta` rows, within the list.
    mutating func moveSelection<Items: RandomAccessCollection<TodoItem>>(by delta: Int, in items: Items) where Items.Index == Int {
        guard !items.isEmpty else { return }
        selectedIndex = min(max(0, selectedIndex + delta), items.count - 1)
        selectedID = items[selectedIndex].id
    }
}
