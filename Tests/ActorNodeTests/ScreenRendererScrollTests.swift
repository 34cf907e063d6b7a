@testable import ActorNode
import Testing

/// The renderer writes only what changed, and scrolls the list's lines on the terminal when its
/// rows moved together: whatever the changes, a terminal that took every update shows the last
/// frame.
@Suite("Keyed repaint")
struct ScreenRendererScrollTests {
    /// What a terminal shows of a frame's line: the last row is one column short (its last cell
    /// is never written).
    private func expected(_ frame: ScreenFrame, columns: Int) -> [String] {
        frame.lines.enumerated().map { row, line in
            var text = row == frame.lines.count - 1 ? DisplayWidth.truncate(line.text, to: columns - 1) : line.text
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    @Test("random changes, scrolling and keys on a log and on a selecting list: the terminal shows every frame", arguments: [1, 2, 3, 4])
    func randomChanges(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var log = ScreenModel<LogScreen>(socket: "s", ui: "me")
        var notes = ScreenModel<NotesScreen>(socket: "s", ui: RowsMade())
        var state = NotesState.numbered(30)
        var nextId = 31
        var (rows, columns) = (12, 40)
        var logTerminal = VirtualTerminal(rows: rows, columns: columns)
        var notesTerminal = VirtualTerminal(rows: rows, columns: columns)
        var logRenderer = ScreenRenderer()
        var notesRenderer = ScreenRenderer()
        var revision: UInt64 = 1
        log.receive(state, revision: revision)
        notes.receive(state, revision: revision)
        let keys: [Key] = [.up, .down, .pageUp, .pageDown, .home, .end, .escape, "j", "k"]
        for step in 0 ..< 400 {
            switch random.next() % 10 {
            case 0, 1, 2:
                state.notes.append(Note(id: nextId, text: "note \(nextId) " + String(repeating: "買", count: Int(random.next() % 30))))
                nextId += 1
            case 3:
                state.notes.insert(Note(id: nextId, text: "inserted \(nextId)"), at: Int(random.next() % UInt64(state.notes.count + 1)))
                nextId += 1
            case 4 where !state.notes.isEmpty:
                state.notes.remove(at: Int(random.next() % UInt64(state.notes.count)))
            case 5 where !state.notes.isEmpty:
                state.notes[Int(random.next() % UInt64(state.notes.count))].text += " \u{1B}[2J changed"
            case 6:
                if random.next() % 20 == 0 { state.notes = [] }
            case 7 where random.next() % 10 == 0:
                // A new size: everything is drawn again.
                (rows, columns) = (5 + Int(random.next() % 20), 20 + Int(random.next() % 60))
                logTerminal = VirtualTerminal(rows: rows, columns: columns)
                notesTerminal = VirtualTerminal(rows: rows, columns: columns)
                logRenderer.invalidate()
                notesRenderer.invalidate()
            default:
                let key = keys[Int(random.next() % UInt64(keys.count))]
                log.press(key)
                notes.press(key)
            }
            revision += 1
            if random.next() % 3 != 0 {
                log.receive(state, revision: revision)
                notes.receive(state, revision: revision)
            }
            let logFrame = log.frame(rows: rows, columns: columns)
            logTerminal.write(logRenderer.update(to: logFrame, columns: columns))
            #expect(logTerminal.screen == expected(logFrame, columns: columns), "log, step \(step)")
            let notesFrame = notes.frame(rows: rows, columns: columns)
            notesTerminal.write(notesRenderer.update(to: notesFrame, columns: columns))
            #expect(notesTerminal.screen == expected(notesFrame, columns: columns), "notes, step \(step)")
            #expect(logTerminal.overflows == 0 && notesTerminal.overflows == 0)
        }
    }

    @Test("a new row at the bottom of a full log scrolls the terminal by one and draws the new row, not the others")
    func newRowScrolls() {
        var model = ScreenModel<LogScreen>(socket: "s", ui: "me")
        var state = NotesState.numbered(50)
        model.receive(state, revision: 1)
        var renderer = ScreenRenderer()
        var terminal = VirtualTerminal(rows: 12, columns: 40)
        terminal.write(renderer.update(to: model.frame(rows: 12, columns: 40), columns: 40))
        state.notes.append(Note(id: 51, text: "note 51"))
        model.receive(state, revision: 2)
        let frame = model.frame(rows: 12, columns: 40)
        let output = renderer.update(to: frame, columns: 40)
        terminal.write(output)
        #expect(terminal.screen == expected(frame, columns: 40))
        #expect(output.components(separatedBy: TerminalSequence.index).count == 2, "one index: \(output.debugDescription)")
        #expect(!output.contains("note 50"), "the rows that moved are not written again")
        #expect(output.contains("note 51"))
        #expect(output.utf8.count < 120, "\(output.utf8.count) bytes: \(output.debugDescription)")
    }

    @Test("a list scrolled down by a selection past its last row moves up on the terminal, drawing the rows that came in")
    func selectionScrolls() {
        var model = ScreenModel<NotesScreen>(socket: "s", ui: RowsMade())
        model.receive(.numbered(40), revision: 1)
        var renderer = ScreenRenderer()
        var terminal = VirtualTerminal(rows: 10, columns: 30)
        terminal.write(renderer.update(to: model.frame(rows: 10, columns: 30), columns: 30))
        model.press(.pageDown)
        let frame = model.frame(rows: 10, columns: 30)
        let output = renderer.update(to: frame, columns: 30)
        terminal.write(output)
        #expect(terminal.screen == expected(frame, columns: 30))
        #expect(output.contains(TerminalSequence.index))
    }
}
