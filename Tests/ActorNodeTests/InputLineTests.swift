@testable import ActorNode
import Testing

/// The one line editor of the full screen's prompts and input line and of the line shell.
@Suite("The input line")
struct InputLineTests {
    private func typed(_ line: inout InputLine, _ text: String) {
        for character in text { _ = line.edit(.character(character)) }
    }

    @Test("characters go in at the cursor; ← → Home End Ctrl-A Ctrl-E move it; Backspace Delete Ctrl-U remove")
    func editing() {
        var line = InputLine()
        typed(&line, "helo world")
        for key: Key in [.home, .right, .right, .right] { #expect(line.edit(key) == .editing) }
        typed(&line, "l")
        #expect(line.string == "hello world" && line.cursor == 4)
        _ = line.edit(.control("e"))
        _ = line.edit(.backspace)
        _ = line.edit(.control("a"))
        _ = line.edit(.delete)
        #expect(line.string == "ello worl" && line.cursor == 0)
        _ = line.edit(.end)
        _ = line.edit(.left)
        #expect(line.cursor == 8)
        _ = line.edit(.control("u"))
        #expect(line.string.isEmpty && line.cursor == 0)
        #expect(line.edit(.pageUp) == .ignored)
        #expect(line.edit(.escape) == .cancelled)
        #expect(line.edit(.control("c")) == .cancelled)
    }

    @Test("Enter sends the line and keeps it in the history; ↑ ↓ go through it and come back to the line being typed")
    func history() {
        var line = InputLine()
        for text in ["first", "second", "second", ""] {
            typed(&line, text)
            #expect(line.edit(.enter) == .submitted(text))
            #expect(line.string.isEmpty)
        }
        #expect(line.history == ["first", "second"], "empty lines and repeats are not kept twice")
        typed(&line, "draft")
        _ = line.edit(.up)
        #expect(line.string == "second" && line.cursor == 6)
        _ = line.edit(.up)
        _ = line.edit(.up)
        #expect(line.string == "first")
        _ = line.edit(.down)
        #expect(line.string == "second")
        _ = line.edit(.down)
        #expect(line.string == "draft", "the line being typed comes back")
        _ = line.edit(.down)
        #expect(line.string == "draft")
        _ = line.edit(.up)
        typed(&line, "!")
        #expect(line.edit(.enter) == .submitted("second!"))
        #expect(line.history.last == "second!")
        line.start(with: "again")
        #expect(line.string == "again" && line.cursor == 5 && line.history.count == 3)
    }

    @Test("what a line shows: the label, the text escaped, scrolled sideways to keep the cursor on screen")
    func visible() {
        var line = InputLine("buy milk", cursor: 4)
        #expect(line.visible(after: " add: ", columns: 40) == (" add: buy milk", 10))
        line = InputLine("bell\u{07}\u{1B}[2J")
        let (text, cursor) = line.visible(after: "> ", columns: 40)
        #expect(text == #"> bell\x07\x1b[2J"#)
        #expect(cursor == DisplayWidth.of(text))
        line = InputLine(String(repeating: "x", count: 50) + "買い物")
        let (long, column) = line.visible(after: "> ", columns: 20)
        #expect(DisplayWidth.of(long) <= 20)
        #expect(long.hasSuffix("x買い物"))
        #expect(column <= 19 && column == DisplayWidth.of(long))
        line.cursor = 0
        #expect(line.visible(after: "> ", columns: 20).cursor == 2)
    }
}
