@testable import ActorNode
import Testing

/// The full-screen kit's model, key by key: lists that select and lists shown from their end,
/// the input line and prompts, the help, the layout, and the cost of a long list.
@Suite("The full-screen kit")
struct ScreenKitTests {
    @Test("a list of 100,000 rows: a frame makes only the rows on screen, and a change to one row draws one line and the status line")
    func longList() {
        let made = RowsMade()
        var model = ScreenModel<NotesScreen>(socket: "s", ui: made)
        var state = NotesState.numbered(100_000)
        model.receive(state, revision: 1)
        var renderer = ScreenRenderer()
        _ = renderer.update(to: model.frame(rows: 24, columns: 80), columns: 80)
        #expect(made.count == 21, "24 rows: the header, 21 rows of the list, the footer and the status line")
        made.count = 0
        state.notes[2].text = "changed"
        model.receive(state, revision: 2)
        let output = renderer.update(to: model.frame(rows: 24, columns: 80), columns: 80)
        #expect(made.count == 21)
        #expect(output.contains("changed") && output.contains("r2"))
        #expect(output.utf8.count < 200, "\(output.debugDescription)")
        // The end of the list is as cheap.
        model.press(.end)
        made.count = 0
        _ = model.frame(rows: 24, columns: 80)
        #expect(made.count == 21)
        #expect(model.cursor.selected == 100_000)
    }

    @Test("a selecting list: keys act on the selected row, which stays on its row by key; a prompt takes a line, Esc closes it")
    func selecting() {
        var model = ScreenModel<NotesScreen>(socket: "s", ui: RowsMade())
        var state = NotesState.numbered(5)
        model.receive(state, revision: 1)
        model.press("j")
        model.press(.down)
        #expect(model.press("d") == [.send(.remove(3))])
        state.notes.insert(Note(id: 9, text: "new"), at: 0)
        model.receive(state, revision: 2)
        #expect(model.press("d") == [.send(.remove(3))], "the selection followed note 3")
        state.notes.removeAll { $0.id == 3 }
        model.receive(state, revision: 3)
        #expect(model.cursor.selected == 4, "note 4 took its place")
        #expect(model.press("a").isEmpty)
        for character in "hi" { model.press(.character(character)) }
        #expect(model.frame(rows: 10, columns: 30).lines.last?.text == " add: hi")
        #expect(model.press(.enter) == [.send(.add("hi"))])
        model.press("a")
        #expect(model.press(.up).isEmpty, "↑ brings back the line sent to this prompt")
        #expect(model.press(.enter) == [.send(.add("hi"))])
        model.press("a")
        model.press("x")
        #expect(model.press(.escape).isEmpty)
        #expect(model.press("q") == [.quit])
    }

    @Test("a list shown from its end follows new rows; scrolled up it stays on its rows by key; Esc follows again")
    func tail() {
        var model = ScreenModel<LogScreen>(socket: "s", ui: "me")
        var state = NotesState.numbered(40)
        model.receive(state, revision: 1)
        // 12 rows: the header, 9 rows of the log, the input line and the status line.
        var lines = model.frame(rows: 12, columns: 30).lines.map(\.text)
        #expect(lines[1] == "note 32" && lines[9] == "note 40")
        state.notes.append(Note(id: 41, text: "note 41"))
        model.receive(state, revision: 2)
        #expect(model.frame(rows: 12, columns: 30).lines[9].text == "note 41")
        model.press(.pageUp)
        lines = model.frame(rows: 12, columns: 30).lines.map(\.text)
        #expect(lines[1] == "note 24" && lines[9] == "note 32")
        // Rows come in at the end and go at the start: the view stays on the rows it shows.
        state.notes.append(Note(id: 42, text: "note 42"))
        state.notes.removeFirst(3)
        model.receive(state, revision: 3)
        #expect(model.frame(rows: 12, columns: 30).lines.map(\.text) [1 ... 9] == lines[1 ... 9])
        model.press(.pageDown)
        model.press(.pageDown)
        #expect(model.frame(rows: 12, columns: 30).lines[9].text == "note 42", "paging down to the end follows again")
        model.press(.pageUp)
        model.press(.escape)
        #expect(model.frame(rows: 12, columns: 30).lines[9].text == "note 42")
        state.notes.append(Note(id: 43, text: "note 43"))
        model.receive(state, revision: 4)
        #expect(model.frame(rows: 12, columns: 30).lines[9].text == "note 43")
    }

    @Test("the input line: keys type into it, Enter gives the line to the app, which may change its UI state; ? on an empty line is the help; Ctrl-C quits")
    func input() {
        var model = ScreenModel<LogScreen>(socket: "s", ui: LogScreen.ui(AttachOptions(["--name": "ann"])))
        model.receive(.numbered(3), revision: 1)
        for character in "q? j" { model.press(.character(character)) }
        #expect(model.inputLine.string == "q? j", "characters are text, not keys")
        let frame = model.frame(rows: 10, columns: 30)
        #expect(frame.lines[8].text == " say: q? j")
        #expect(frame.cursor?.row == 8 && frame.cursor?.column == 10)
        #expect(model.press(.enter) == [.send(.add("ann: q? j"))])
        #expect(model.press(.enter).isEmpty, "an empty line is not given")
        for character in "/name bo" { model.press(.character(character)) }
        #expect(model.press(.enter).isEmpty)
        #expect(model.ui == "bo")
        #expect(model.frame(rows: 10, columns: 30).lines[0].text == " log · bo", "the view shows the new UI state")
        model.press("x")
        #expect(model.press(.enter) == [.send(.add("bo: x"))])
        model.press(.up)
        #expect(model.inputLine.string == "x")
        model.press(.control("u"))
        model.press("?")
        if case .help = model.mode {} else { Issue.record("? on an empty line opens the help") }
        model.press(.escape)
        #expect(model.press(.control("d")) == [.quit])
        #expect(model.press(.control("c")) == [.quit])
        for character in "/quit" { model.press(.character(character)) }
        #expect(model.press(.enter) == [.quit])
    }

    @Test("the help lists the kit's keys for moving, the app's keys and the input line's words, then redrawing and quitting")
    func help() {
        #expect(ScreenModel<NotesScreen>.helpText(for: .selecting) == [
            "keys (? Esc q close this)",
            "↑ ↓ or j k  move the selection",
            "a           add a note",
            "d           remove the selected note",
            "Ctrl-L      redraw",
            "q           quit",
        ])
        #expect(ScreenModel<LogScreen>.helpText(for: .tail) == [
            "keys (? Esc q close this)",
            "/name NEW     write as NEW",
            "← → Home End  move in the line (Ctrl-A, Ctrl-E; Ctrl-U empties it)",
            "↑ ↓           the lines sent before",
            "PgUp PgDn     scroll (Esc: back to the newest)",
            "Ctrl-L        redraw",
            "Ctrl-C        quit",
        ])
    }

    @Test("the frame: every cell escaped, a filling cell keeping the last in place, the rows below and then above the list dropped on short terminals")
    func layout() {
        var model = ScreenModel<NotesScreen>(socket: "/run/x.sock", ui: RowsMade())
        model.receive(NotesState([Note(id: 1, text: "\u{1B}[2Jwiped"), Note(id: 22, text: String(repeating: "long ", count: 20))]), revision: 7)
        var lines = model.frame(rows: 8, columns: 30).lines
        #expect(lines.map(\.text) == [
            " notes",
            #"> \x1b[2Jwiped              #1"#,
            "  long long long long lon… #22",
            "", "", "",
            " 2 notes",
            " /run/x.sock · connected · r7…",
        ])
        #expect(lines[1].style.reverse && !lines[2].style.reverse, "the selected row is reversed")
        #expect(lines.allSatisfy { DisplayWidth.of($0.text) <= 30 })
        lines = model.frame(rows: 4, columns: 30).lines
        #expect(lines.map(\.text).first == #"> \x1b[2Jwiped              #1"#, "4 rows: no header")
        #expect(lines.count == 4 && lines[2].text == " 2 notes")
        lines = model.frame(rows: 2, columns: 30).lines
        #expect(lines.count == 2 && lines[0].text.hasPrefix("> "), "2 rows: a row of the list and the status line")
        model.receive(NotesState(), revision: 8)
        #expect(model.frame(rows: 8, columns: 30).lines[1].text == "  (none)")
    }
}
