import ActorNode
import Testing
@testable import ShellClient
@testable import TodoContract
@testable import Wire

/// The to-do app's full screen on the kit: the model, key by key, and its frames as text.
typealias TodoModel = ScreenModel<TodoShell>

extension ScreenModel where App == TodoShell {
    /// A model at `socket` showing `state`.
    init(socket: String = "/run/cama/core.sock", showing state: AppState, revision: UInt64 = 7) {
        self.init(socket: socket, ui: TodoShell.DoneCount())
        receive(state, revision: revision)
    }

    /// Presses each key in turn; returns what the last one asked for.
    @discardableResult
    mutating func press(_ keys: [Key]) -> [Output] {
        var outputs: [Output] = []
        for key in keys { outputs = press(key) }
        return outputs
    }

    /// Types the text, a key per character.
    mutating func type(_ text: String) {
        press(text.map { Key.character($0) })
    }

    /// The frame's lines as text.
    mutating func lines(rows: Int = 24, columns: Int = 80) -> [String] {
        frame(rows: rows, columns: columns).lines.map(\.text)
    }

    var isHelp: Bool {
        if case .help = mode { return true }
        return false
    }

    var isNormal: Bool {
        if case .normal = mode { return true }
        return false
    }

    var isConfirming: Bool {
        if case .confirm = mode { return true }
        return false
    }

    /// The label of the prompt open, and its line.
    var prompt: (label: String, line: InputLine)? {
        guard case let .prompt(prompt) = mode else { return nil }
        return (prompt.label, promptLines[prompt.label] ?? InputLine())
    }
}

/// The full-screen shell's render function, as text frames.
@Suite("Full-screen render")
struct ShellScreenTests {
    private func state(_ count: Int, texts: [String] = []) -> AppState {
        let items = (1 ... max(1, count)).prefix(count).map { TodoItem(id: $0, text: texts.indices.contains($0 - 1) ? texts[$0 - 1] : "item \($0)") }
        return AppState(todo: TodoState(items: Array(items), nextId: count + 1))
    }

    private func frame(_ state: AppState, rows: Int = 24, columns: Int = 80, revision: UInt64 = 7) -> [String] {
        var model = TodoModel(showing: state, revision: revision)
        return model.lines(rows: rows, columns: columns)
    }

    @Test("80x24: title, list with the selection on the first item, counter and timer, status line")
    func standardSize() {
        var app = state(3)
        app.todo.items[1].done = true
        app.todo.items[2].pomodoros = 2
        app.counter.value = 4
        app.timer = TimerState(item: 3, running: true, remaining: 1453, deadline: 0)
        let lines = frame(app)
        #expect(lines.count == 24)
        #expect(lines[0] == " CAMA to-do · 3 items, 1 done")
        #expect(lines[1].hasPrefix("> 1 [ ] item 1"))
        #expect(lines[2].hasPrefix("  2 [x] item 2"))
        #expect(lines[3].hasPrefix("  3 [ ] item 3"))
        #expect(lines[3].hasSuffix(" ◀ 2🍅"))
        #expect(DisplayWidth.of(lines[3]) == 80)
        #expect(lines[22] == " counter 4 · focus 24:13 left · 3 item 3")
        #expect(lines[23] == " /run/cama/core.sock · connected · r7 · 1 shell · ? help")
    }

    @Test("control characters in texts from the core are drawn escaped, never sent to the terminal")
    func hostileText() {
        var app = state(2, texts: ["\u{1b}[2Jwiped", "bell\u{07}\u{9b}31m"])
        app.timer = TimerState(item: 1, running: true, remaining: 60, deadline: 0)
        var model = TodoModel(showing: app)
        model.message = .init("notice: \u{1b}]0;title\u{07}", isError: false)
        let lines = model.lines()
        #expect(lines[1].hasPrefix("> 1 [ ] \\x1b[2Jwiped"))
        #expect(lines[2].hasPrefix("  2 [ ] bell\\x07\\x9b31m"))
        #expect(lines[22].hasSuffix("1 \\x1b[2Jwiped"))
        #expect(lines[23] == " notice: \\x1b]0;title\\x07")
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7f ... 0x9f).contains($0.value) }, "\(line.debugDescription)")
        }
    }

    @Test("a long focused item's text is cut on the counter line; the time left never is")
    func focusTimeStays() {
        var app = state(2)
        app.todo.items[1].text = "call mum about the weekend plans and the long list of things"
        app.timer = TimerState(item: 2, running: true, remaining: 61, deadline: 0)
        let line = frame(app, rows: 12, columns: 40)[10]
        #expect(line == " counter 0 · focus 1:01 left · 2 call m…")
        #expect(DisplayWidth.of(line) == 40)
    }

    @Test("20x5 keeps the status line, the counter line and some of the list, each cut to 20 columns")
    func narrow() {
        let lines = frame(state(4), rows: 5, columns: 20)
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 20 })
        #expect(lines[0].hasPrefix(" CAMA to-do"))
        #expect(lines[1].hasPrefix("> 1 [ ] item 1"))
        #expect(lines[3].hasPrefix(" counter 0"))
        #expect(lines[4].hasSuffix("…"))
        #expect(frame(state(4), rows: 2, columns: 20).count == 2, "even 2 rows: one item and the status line")
    }

    @Test("wide characters are measured by display width, so nothing wraps or shifts")
    func wideCharacters() {
        let lines = frame(state(2, texts: ["買い物リストを作って全部買う、それから家に帰って料理する", "👍🏽 ok café"]), columns: 30)
        #expect(DisplayWidth.of(lines[1]) == 30)
        // A wide character that would straddle the edge is left out; the column left is padding.
        #expect(lines[1] == "> 1 [ ] 買い物リストを作って… ")
        #expect(lines[2] == "  2 [ ] 👍🏽 ok café" + String(repeating: " ", count: 30 - 8 - 10))
        #expect(DisplayWidth.of(Character("買")) == 2 && DisplayWidth.of(Character("👍🏽")) == 2 && DisplayWidth.of(Character("é")) == 1)
        #expect(DisplayWidth.of(Character("e\u{301}")) == 1, "e + combining accent is one column")
    }

    @Test("a long list scrolls to keep the selection visible, and no further")
    func scrolling() {
        let app = state(50)
        var model = TodoModel(socket: "s", showing: app, revision: 1)
        model.press(Array(repeating: Key.down, count: 30))
        let texts = model.lines(rows: 10, columns: 40)
        #expect(model.cursor.scroll == 31 - 7 + 1 - 1, "7 list rows; item 31 is the last shown")
        #expect(texts[7].hasPrefix("> 31 [ ] item 31"))
        #expect(ListCursor<Int>.scrollPosition(selected: 25, previous: 24, count: 50, rows: 7) == 24, "unchanged while visible")
        #expect(ListCursor<Int>.scrollPosition(selected: 3, previous: 24, count: 50, rows: 7) == 3)
        #expect(ListCursor<Int>.scrollPosition(selected: 49, previous: 0, count: 50, rows: 7) == 43)
    }

    @Test("a help taller than the screen scrolls with ↑ ↓ and shows its last key")
    func helpScrolls() {
        var model = TodoModel(socket: "s", showing: state(3))
        model.press("?")
        var lines = model.lines(rows: 8, columns: 60)
        #expect(lines[1] == "  keys (↑ ↓ scroll; ? Esc q close this)")
        #expect(lines[2] == "  ↑ ↓ or j k  move the selection")
        for _ in 0 ..< 20 {
            model.press(.down)
            // As the shell does: a frame after each key, which keeps the help within its bounds.
            _ = model.frame(rows: 8, columns: 60)
        }
        lines = model.lines(rows: 8, columns: 60)
        #expect(lines[5] == "  q           quit", "the last key is on the last help row")
        model.press("k")
        #expect(model.isHelp)
        #expect(model.lines(rows: 8, columns: 60)[5] == "  Ctrl-L      redraw")
    }

    @Test("? shows the keys over the list")
    func helpOverlay() {
        var model = TodoModel(socket: "s", showing: state(3))
        model.press("?")
        let lines = model.lines()
        #expect(lines[1] == "  keys (? Esc q close this)")
        #expect(lines.contains("  a           add an item (Enter sends, Esc cancels)"))
        #expect(!lines.contains { $0.contains("item 1") })
    }

    @Test("typing shows the text with the cursor where it is")
    func inputLine() {
        var model = TodoModel(socket: "s", showing: state(1), revision: 1)
        model.press("a")
        model.type("buy milk")
        model.press(Array(repeating: Key.left, count: 4))
        let rendered = model.frame(rows: 10, columns: 40)
        #expect(rendered.lines.last?.text == " add: buy milk")
        #expect(rendered.cursor?.row == 9)
        #expect(rendered.cursor?.column == 10)
    }

    @Test("a message replaces the status line until the next key")
    func messages() {
        var model = TodoModel(socket: "s", showing: state(1))
        model.message = .init("rejected: no item with id 9", isError: true)
        #expect(model.lines().last == " rejected: no item with id 9")
        model.press(.down)
        #expect(model.message == nil)
    }
}

@Suite("Full-screen keys and selection")
struct ShellKeysTests {
    private let items = (1 ... 5).map { TodoItem(id: $0 * 10, text: "t\($0)") }

    private var app: AppState { AppState(todo: TodoState(items: items, nextId: 60)) }

    private func app(_ items: [TodoItem]) -> AppState { AppState(todo: TodoState(items: items, nextId: 100)) }

    @Test("the selection stays on the same item when others are added or removed above it")
    func selectionFollowsTheItem() {
        var model = TodoModel(socket: "s", showing: app)
        #expect(model.cursor.selected == 10, "the selection starts on the first item")
        model.press([.down, .down])
        #expect(model.cursor.selected == 30)
        var changed = items
        changed.insert(TodoItem(id: 99, text: "new"), at: 0)
        changed.remove(at: 2)
        model.receive(app(changed), revision: 8)
        #expect(model.cursor.selected == 30)
        #expect(model.cursor.selectedIndex == 2)
        changed.removeAll { $0.id == 30 }
        model.receive(app(changed), revision: 9)
        #expect(model.cursor.selected == changed[2].id, "when it goes, the selection takes its place")
    }

    @Test("keys send the actions the help lists")
    func keys() {
        var model = TodoModel(socket: "s", showing: app)
        model.press(.down)
        #expect(model.press("x") == [.send(.todo(.toggle(id: 20)))])
        #expect(model.press(" ") == [.send(.todo(.toggle(id: 20)))])
        #expect(model.press("d") == [.send(.todo(.remove(id: 20)))])
        #expect(model.press("J") == [.send(.todo(.move(id: 20, position: 3)))])
        #expect(model.press("K") == [.send(.todo(.move(id: 20, position: 1)))])
        #expect(model.press("+") == [.send(.counter(.increment))])
        #expect(model.press("-") == [.send(.counter(.decrement))])
        #expect(model.press("0") == [.send(.counter(.reset))])
        #expect(model.press("r") == [.send(.counter(.randomize))])
        #expect(model.press("t") == [.send(.timer(.start(id: 20, seconds: nil)))])
        #expect(model.press("s") == [.send(.timer(.stop))])
        #expect(model.press("p") == [.send(.timer(.pick))])
        #expect(model.press("q") == [.quit])
    }

    @Test("clear asks first: y clears, anything else does not")
    func clearAsks() {
        var model = TodoModel(socket: "s", showing: app)
        #expect(model.press("c").isEmpty)
        #expect(model.isConfirming)
        #expect(model.lines().last == " clear all 5 items? (y/n)")
        #expect(model.press("n").isEmpty)
        #expect(model.isNormal)
        model.press("c")
        #expect(model.press("y") == [.send(.todo(.clear))])
    }

    @Test("adding and editing: a line with cursor editing; Enter sends, Esc cancels")
    func editing() {
        var model = TodoModel(socket: "s", showing: app)
        model.press("a")
        model.press([Key.character("m"), .character("l"), .character("k"), .left, .left, .character("i"), .end, .backspace, .character("k"), .home, .delete, .character("M")])
        #expect(model.prompt?.label == "add: ")
        #expect(model.prompt?.line.text == Array("Milk"))
        #expect(model.prompt?.line.cursor == 1)
        #expect(model.press(.enter) == [.send(.todo(.add(text: "Milk")))])
        #expect(model.isNormal)

        model.press("e")
        #expect(model.prompt?.label == "edit: ")
        #expect(model.prompt?.line.text == Array("t1"))
        #expect(model.prompt?.line.cursor == 2)
        model.press(.control("u"))
        model.press("z")
        #expect(model.press(.escape).isEmpty)
        #expect(model.isNormal)
    }

    @Test("the help overlay opens on ? and closes on ?, Esc or q")
    func help() {
        var model = TodoModel(socket: "s", showing: app)
        for closer in [Key.character("?"), .escape, .character("q")] {
            model.press("?")
            #expect(model.isHelp)
            #expect(model.press(closer).isEmpty, "q closes the help, it does not quit")
            #expect(model.isNormal)
        }
    }
}

@Suite("Terminal keys and widths")
struct TerminalDecodingTests {
    @Test("bytes become keys: arrows in both forms, editing keys, UTF-8, control keys")
    func decoding() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[A\u{1B}OB\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(decoder.feed(Array("\u{1B}[3~\u{1B}[H\u{1B}[4~\r\u{7F}".utf8)) == [.delete, .home, .end, .enter, .backspace])
        #expect(decoder.feed(Array("a買👍".utf8)) == [.character("a"), .character("買"), .character("👍")])
        #expect(decoder.feed([0x03, 0x0C]) == [.control("c"), .control("l")])
    }

    @Test("a sequence split across reads still decodes; a lone ESC becomes Escape after a pause")
    func splitAndEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.hasPendingEscape)
        #expect(decoder.feed(Array("[".utf8)).isEmpty)
        #expect(decoder.feed(Array("B".utf8)) == [.down])
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.flushEscape() == [.escape])
        #expect(decoder.feed(Array("買".utf8).prefix(2)).isEmpty)
        #expect(decoder.feed(Array("買".utf8).suffix(1)) == [.character("買")])
    }

    @Test("truncation never splits a wide character and always fits")
    func truncation() {
        #expect(DisplayWidth.truncate("買い物", to: 4) == "買…")
        #expect(DisplayWidth.truncate("買い物", to: 6) == "買い物")
        #expect(DisplayWidth.truncate("abcdef", to: 4) == "abc…")
        #expect(DisplayWidth.fit("ab", to: 4) == "ab  ")
        #expect(DisplayWidth.of(DisplayWidth.fit("買い物です", to: 7)) == 7)
    }
}

@Suite("Diff rendering")
struct ScreenRendererTests {
    private func frame(_ state: AppState, selected: Int = 0) -> ScreenFrame {
        var model = TodoModel(showing: state, revision: 1)
        model.press(Array(repeating: Key.down, count: selected))
        return model.frame(rows: 24, columns: 80)
    }

    @Test("the first frame draws everything; a change to one item writes about one line")
    func oneLinePerChange() {
        var app = AppState(todo: TodoState(items: (1 ... 15).map { TodoItem(id: $0, text: "item number \($0)") }, nextId: 16))
        var renderer = ScreenRenderer()
        let first = renderer.update(to: frame(app), columns: 80)
        #expect(first.hasPrefix("\u{1B}[2J"))
        #expect((1 ... 24).allSatisfy { first.contains("\u{1B}[\($0);1H") }, "every row is drawn")

        app.todo.items[7].done = true
        let second = renderer.update(to: frame(app), columns: 80)
        // The item's row, plus the title (its done count): their text and a few bytes of
        // escape sequences each, not 80 columns of padding.
        #expect(second == "\u{1B}[1;1H\u{1B}[1m CAMA to-do · 15 items, 1 done\u{1B}[0m\u{1B}[K"
            + "\u{1B}[9;1H  8 [x] item number 8\u{1B}[0m\u{1B}[K\u{1B}[?25l")
        #expect(second.utf8.count < 100, "\(second.utf8.count) bytes for one toggled item")

        let third = renderer.update(to: frame(app), columns: 80)
        #expect(third.isEmpty, "nothing changed, nothing written")

        let moved = renderer.update(to: frame(app, selected: 1), columns: 80)
        #expect(moved.utf8.count < 80 + 2 * 40, "moving the selection rewrites two rows, one of them the full-width bar")
    }

    @Test("a new width redraws everything")
    func resize() {
        let app = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "a")], nextId: 2))
        var renderer = ScreenRenderer()
        _ = renderer.update(to: frame(app), columns: 80)
        let redrawn = renderer.update(to: frame(app), columns: 60)
        #expect(redrawn.hasPrefix("\u{1B}[2J"))
    }
}
