import ActorNode
import TodoContract
import Wire

/// What a key does in the full-screen shell: it changes the UI state and may send actions,
/// quit or redraw. Pure, like an Elm update; the keys are listed in the help.
enum ShellKeys {
    enum Command: Equatable {
        case send(AppAction)
        case quit
        case redraw
    }

    static func handle(_ key: Key, ui: inout UIState, state: AppState) -> [Command] {
        ui.message = nil
        switch ui.mode {
        case .help:
            switch key {
            case .character("?"), .escape, .character("q"): ui.mode = .normal
            case .up, .character("k"): ui.helpScroll = max(0, ui.helpScroll - 1)
            case .down, .character("j"): ui.helpScroll += 1
            default: break
            }
            return []
        case .confirmClear:
            ui.mode = .normal
            return key == .character("y") || key == .character("Y") ? [.send(.todo(.clear))] : []
        case var .input(line):
            let commands = edit(&line, key: key)
            switch commands {
            case .keepTyping:
                ui.mode = .input(line)
                return []
            case .cancel:
                ui.mode = .normal
                return []
            case .submit:
                ui.mode = .normal
                let text = String(line.text)
                switch line.purpose {
                case .add: return [.send(.todo(.add(text: text)))]
                case let .edit(id): return [.send(.todo(.edit(id: id, text: text)))]
                }
            }
        case .normal:
            return normal(key, ui: &ui, state: state)
        }
    }

    private static func normal(_ key: Key, ui: inout UIState, state: AppState) -> [Command] {
        let items = state.todo.items
        let selected = items.indices.contains(ui.selectedIndex) ? items[ui.selectedIndex] : nil
        switch key {
        case .up, .character("k"): ui.moveSelection(by: -1, in: items)
        case .down, .character("j"): ui.moveSelection(by: 1, in: items)
        case .pageUp: ui.moveSelection(by: -10, in: items)
        case .pageDown: ui.moveSelection(by: 10, in: items)
        case .home: ui.moveSelection(by: -items.count, in: items)
        case .end: ui.moveSelection(by: items.count, in: items)
        case .character("a"):
            ui.mode = .input(.init(purpose: .add))
        case .character("e"):
            guard let selected else { return [] }
            let text = Array(selected.text)
            ui.mode = .input(.init(purpose: .edit(id: selected.id), text: text, cursor: text.count))
        case .character(" "), .character("x"):
            return selected.map { [.send(.todo(.toggle(id: $0.id)))] } ?? []
        case .character("d"), .delete:
            return selected.map { [.send(.todo(.remove(id: $0.id)))] } ?? []
        case .character("J"):
            guard let selected, ui.selectedIndex + 1 < items.count else { return [] }
            return [.send(.todo(.move(id: selected.id, position: ui.selectedIndex + 2)))]
        case .character("K"):
            guard let selected, ui.selectedIndex > 0 else { return [] }
            return [.send(.todo(.move(id: selected.id, position: ui.selectedIndex)))]
        case .character("c"):
            if !items.isEmpty { ui.mode = .confirmClear }
        case .character("+"): return [.send(.counter(.increment))]
        case .character("-"): return [.send(.counter(.decrement))]
        case .character("0"): return [.send(.counter(.reset))]
        case .character("r"): return [.send(.counter(.randomize))]
        case .character("t"):
            return selected.map { [.send(.timer(.start(id: $0.id, seconds: nil)))] } ?? []
        case .character("s"): return [.send(.timer(.stop))]
        case .character("p"): return [.send(.timer(.pick))]
        case .character("?"):
            ui.mode = .help
            ui.helpScroll = 0
        case .character("q"), .control("c"), .control("d"): return [.quit]
        case .control("l"): return [.redraw]
        default: break
        }
        return []
    }

    enum Editing { case keepTyping, cancel, submit }

    /// Line editing: characters go in at the cursor; ← → Home End (Ctrl-A Ctrl-E) move it;
    /// Backspace and Delete remove; Ctrl-U empties the line; Enter sends; Esc cancels.
    static func edit(_ line: inout UIState.InputLine, key: Key) -> Editing {
        switch key {
        case .enter: return .submit
        case .escape, .control("c"): return .cancel
        case let .character(character):
            line.text.insert(character, at: line.cursor)
            line.cursor += 1
        case .left: line.cursor = max(0, line.cursor - 1)
        case .right: line.cursor = min(line.text.count, line.cursor + 1)
        case .home, .control("a"): line.cursor = 0
        case .end, .control("e"): line.cursor = line.text.count
        case .backspace:
            if line.cursor > 0 {
                line.text.remove(at: line.cursor - 1)
                line.cursor -= 1
            }
        case .delete:
            if line.cursor < line.text.count { line.text.remove(at: line.cursor) }
        case .control("u"):
            line.text = []
            line.cursor = 0
        default:
            break
        }
        return .keepTyping
    }
}
