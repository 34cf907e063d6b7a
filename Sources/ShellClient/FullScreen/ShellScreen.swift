import ActorNode
import TodoContract
import Wire

/// The full-screen shell's view, as a pure function: `render(state, ui, size)` is the frame,
/// line by line (Elm's view, Shohin's render). Nothing here writes to the terminal; the
/// ``ScreenRenderer`` turns frames into the bytes that change.
///
/// Layout, top to bottom: a title; the list (id, done mark, text, pomodoros) with the selection;
/// the counter and the focus timer; the status line (socket, connection, revision, shells, or a
/// message, a question, the text being typed). Smaller screens drop the title, then the counter
/// line; every line is cut to the width by display columns, with an ellipsis.
enum ShellScreen {
    struct Size: Equatable, Sendable {
        var rows: Int
        var columns: Int
    }

    /// The frame, the scroll position that keeps the selection visible, and the help's scroll
    /// position within its bounds (both to remember in the UI state).
    static func render(_ state: AppState, revision: UInt64, ui: UIState, size: Size, doneCount: Int? = nil) -> (frame: ScreenFrame, scroll: Int, helpScroll: Int) {
        let rows = max(1, size.rows)
        let columns = max(1, size.columns)
        let showsTitle = rows >= 5
        let showsCounter = rows >= 3
        let listRows = max(0, rows - (showsTitle ? 1 : 0) - (showsCounter ? 1 : 0) - 1)
        var lines: [ScreenLine] = []
        var cursor: (row: Int, column: Int)?

        if showsTitle {
            lines.append(ScreenLine(key: "title", text: title(state, columns: columns, doneCount: doneCount), style: .heading))
        }
        let items = state.todo.items
        let scroll = scrollPosition(selected: ui.selectedIndex, previous: ui.scroll, count: items.count, rows: listRows)
        let helpScroll = helpScrollPosition(ui.helpScroll, rows: listRows)
        if ui.mode == .help {
            lines += helpLines(rows: listRows, columns: columns, scroll: helpScroll)
        } else {
            for row in 0 ..< listRows {
                let index = scroll + row
                guard index < items.count else {
                    lines.append(ScreenLine(key: "empty-\(row)", text: index == 0 && row == 0 ? "  (no items: press a to add one)" : "", style: .dim))
                    continue
                }
                let item = items[index]
                let selected = index == ui.selectedIndex
                lines.append(ScreenLine(
                    key: "item-\(item.id)",
                    text: itemLine(item, focused: state.timer.running && state.timer.item == item.id, selected: selected, columns: columns),
                    style: selected ? .selected : .plain))
            }
        }
        if showsCounter {
            lines.append(ScreenLine(key: "counter", text: counterLine(state, columns: columns), style: .plain))
        }
        let (status, statusCursor) = statusLine(revision: revision, ui: ui, state: state, columns: columns)
        if let statusCursor { cursor = (lines.count, statusCursor) }
        lines.append(ScreenLine(key: "status", text: status, style: ui.message?.kind == .error ? .heading : .dim))
        return (ScreenFrame(lines: lines, cursor: cursor), scroll, helpScroll)
    }

    /// The first row shown: unchanged if the selection is visible, else just enough to show it.
    static func scrollPosition(selected: Int, previous: Int, count: Int, rows: Int) -> Int {
        guard rows > 0, count > rows else { return 0 }
        var scroll = min(previous, count - rows)
        if selected < scroll { scroll = selected }
        if selected >= scroll + rows { scroll = selected - rows + 1 }
        return max(0, scroll)
    }

    /// The title line: how many items, how many done (`doneCount`, when the caller keeps it,
    /// else counted here).
    static func title(_ state: AppState, columns: Int, doneCount: Int? = nil) -> String {
        let items = state.todo.items
        let done = doneCount ?? items.reduce(0) { $0 + ($1.done ? 1 : 0) }
        let summary = items.isEmpty ? "no items" : "\(items.count) item\(items.count == 1 ? "" : "s"), \(done) done"
        return DisplayWidth.truncate(" CAMA to-do · \(summary)", to: columns)
    }

    /// `> 12 [x] buy milk                     2 🍅` — selection mark, id, done mark, text cut to
    /// fit, pomodoros on the right; the item in focus is marked with ◀.
    static func itemLine(_ item: TodoItem, focused: Bool, selected: Bool, columns: Int) -> String {
        let left = "\(selected ? ">" : " ") \(item.id) [\(item.done ? "x" : " ")] "
        var right = item.pomodoros > 0 ? " \(item.pomodoros)🍅" : ""
        if focused { right = " ◀" + right }
        let available = columns - DisplayWidth.of(left) - DisplayWidth.of(right)
        let text = PeerText.escaped(item.text)
        guard available >= 1 else { return DisplayWidth.truncate(left + text, to: columns) }
        return left + DisplayWidth.fit(text, to: available) + right
    }

    /// ` counter 4 · focus 24:13 left · 3 water plants`: the time left comes before the item's
    /// text, so a long text is what gets cut, never the time.
    static func counterLine(_ state: AppState, columns: Int) -> String {
        var text = " counter \(state.counter.value)"
        guard state.timer.running, let item = state.timer.item else {
            return DisplayWidth.truncate(text + " · no focus", to: columns)
        }
        text += " · focus \(StateText.clock(state.timer.remaining)) left · \(item) "
        let name = PeerText.escaped(state.todo.items.first { $0.id == item }?.text ?? "?")
        let available = columns - DisplayWidth.of(text)
        guard available >= 1 else { return DisplayWidth.truncate(text, to: columns) }
        return text + DisplayWidth.truncate(name, to: available)
    }

    /// The status line, and the cursor's column when text is being typed in it.
    static func statusLine(revision: UInt64, ui: UIState, state: AppState, columns: Int) -> (String, Int?) {
        switch ui.mode {
        case let .input(line):
            let prompt = line.purpose == .add ? " add: " : " edit: "
            let before = String(line.text[..<line.cursor])
            var text = prompt + String(line.text)
            // Keep the cursor on screen when the text is wider than the line.
            let cursorColumn = DisplayWidth.of(prompt) + DisplayWidth.of(before)
            if cursorColumn >= columns - 1 {
                let drop = cursorColumn - (columns - 2)
                text = prompt + String(String(line.text).dropFirst(max(0, drop)))
                return (DisplayWidth.truncate(text, to: columns), min(columns - 1, DisplayWidth.of(prompt) + DisplayWidth.of(String(before.dropFirst(max(0, drop))))))
            }
            return (DisplayWidth.truncate(text, to: columns), cursorColumn)
        case .confirmClear:
            return (DisplayWidth.truncate(" clear all \(state.todo.items.count) items? (y/n)", to: columns), nil)
        case .help, .normal:
            if let message = ui.message {
                return (DisplayWidth.truncate(" " + PeerText.escaped(message.text), to: columns), nil)
            }
            let connection: String
            switch ui.connection {
            case .connected: connection = "connected"
            case .reconnecting: connection = "reconnecting…"
            }
            let text = " \(ui.socket) · \(connection) · r\(revision) · \(ui.shells) shell\(ui.shells == 1 ? "" : "s") · ? help"
            return (DisplayWidth.truncate(text, to: columns), nil)
        }
    }

    static let helpText = [
        "keys (? Esc q close this)",
        "↑ ↓ or j k  move the selection",
        "a           add an item (Enter sends, Esc cancels)",
        "e           edit the selected item",
        "space or x  mark done / not done",
        "d           delete the selected item",
        "J K         move the item down / up",
        "c           clear all (asks first)",
        "+ - 0 r     counter: up, down, reset, random",
        "t           focus on the selected item (25 min)",
        "s           stop the focus",
        "p           focus on a random item not done",
        "Ctrl-L      redraw",
        "q           quit",
    ]

    /// The first line of the help's body shown on `rows` rows: within what keeps them full.
    static func helpScrollPosition(_ wanted: Int, rows: Int) -> Int {
        min(max(0, wanted), max(0, helpText.count - 1 - max(0, rows - 1)))
    }

    /// The help over the list: its heading, then as much of the keys as fits, from line
    /// `scroll` of its body (↑ ↓ while it is open) when the screen is too short for all of them.
    static func helpLines(rows: Int, columns: Int, scroll: Int) -> [ScreenLine] {
        guard rows > 0 else { return [] }
        let body = Array(helpText.dropFirst())
        let bodyRows = rows - 1
        let fits = body.count <= bodyRows
        let first = helpScrollPosition(scroll, rows: rows)
        let heading = fits ? helpText[0] : "keys (↑ ↓ scroll; ? Esc q close this)"
        var lines = [ScreenLine(key: "help-0", text: DisplayWidth.truncate("  " + heading, to: columns), style: .heading)]
        for row in 0 ..< bodyRows {
            let index = first + row
            let text = index < body.count ? "  " + body[index] : ""
            lines.append(ScreenLine(key: "help-\(row + 1)", text: DisplayWidth.truncate(text, to: columns), style: .plain))
        }
        return lines
    }
}
