extension ScreenModel {
    /// What a key does (Elm's update for keys): the help and a question or prompt on the bottom
    /// line take every key while they are open; otherwise the app's keys come first, then the
    /// kit's: moving through the list, `?`, quitting, redrawing, and the input line's editing.
    /// Any key clears the last message.
    /// - Parameter key: the key pressed.
    /// - Returns: what the loop must do.
    @discardableResult
    package mutating func press(_ key: Key) -> [Output] {
        message = nil
        switch mode {
        case .help:
            switch key {
            case "?", .escape, "q": mode = .normal
            case .up, "k": helpScroll = max(0, helpScroll - 1)
            case .down, "j": helpScroll += 1
            case .pageUp: helpScroll = max(0, helpScroll - page)
            case .pageDown: helpScroll += page
            case .control("c"): return [.quit]
            default: break
            }
            return []
        case let .confirm(_, actions):
            mode = .normal
            return key == "y" || key == "Y" ? actions.map { .send($0) } : []
        case let .prompt(prompt):
            switch promptLines[prompt.label, default: InputLine()].edit(key) {
            case let .submitted(text):
                mode = .normal
                return perform(key) { prompt.submit(text, &$0) }
            case .cancelled:
                mode = .normal
            case .editing, .ignored:
                break
            }
            return []
        case .normal:
            return App.input == nil ? pressInList(key) : pressInInput(key)
        }
    }

    /// A key on a screen without an input line.
    private mutating func pressInList(_ key: Key) -> [Output] {
        if let binding = App.keys.first(where: { $0.keys.contains(key) }) {
            return perform(key, binding.run)
        }
        switch key {
        case .up, "k": move(by: -1)
        case .down, "j": move(by: 1)
        case .pageUp: move(by: -page)
        case .pageDown: move(by: page)
        case .home: move(by: Int.min / 2)
        case .end: move(by: Int.max / 2)
        case "?": openHelp()
        case "q", .control("c"), .control("d"): return [.quit]
        case .control("l"): return [.redraw]
        default: break
        }
        return []
    }

    /// A key on a screen with an input line: characters are typed into it; the app's other keys
    /// come first, then the kit's.
    private mutating func pressInInput(_ key: Key) -> [Output] {
        if case .character = key {
        } else if let binding = App.keys.first(where: { $0.keys.contains(key) }) {
            return perform(key, binding.run)
        }
        switch key {
        case .control("c"): return [.quit]
        case .control("d") where inputLine.text.isEmpty: return [.quit]
        case .control("l"): return [.redraw]
        case "?" where inputLine.text.isEmpty:
            openHelp()
            return []
        case .pageUp:
            move(by: -page)
            return []
        case .pageDown:
            move(by: page)
            return []
        case .escape:
            cursor.followEnd()
            return []
        default:
            break
        }
        guard case let .submitted(text) = inputLine.edit(key), !text.isEmpty, let input = App.input else { return [] }
        return perform(key) { input.submit(text, &$0) }
    }

    private mutating func move(by delta: Int) {
        guard let list = view()?.list else { return }
        cursor.move(by: delta, in: list, rows: page)
    }

    private mutating func openHelp() {
        mode = .help
        helpScroll = 0
    }
}
