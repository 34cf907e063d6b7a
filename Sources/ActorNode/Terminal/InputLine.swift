/// A line of text being typed, with its cursor and the lines typed before it: the one line
/// editor of every shell, the full screen's prompts and input line and the line shell on a
/// terminal alike. Characters go in at the cursor; ← → Home End (Ctrl-A Ctrl-E) move it;
/// Backspace and Delete remove; Ctrl-U empties the line; ↑ ↓ bring back the lines sent before
/// (the line being typed comes back after the newest); Enter sends; Esc and Ctrl-C cancel.
package struct InputLine: Equatable, Sendable {
    /// What a key did to the line.
    package enum Outcome: Equatable, Sendable {
        /// The line or its cursor may have changed; keep typing.
        case editing
        /// Enter: the line, sent (and kept in the history; the line is empty again).
        case submitted(String)
        /// Esc or Ctrl-C: the line is abandoned (it is left as it is).
        case cancelled
        /// Not an editing key: the caller may use it.
        case ignored
    }

    package var text: [Character]
    /// An index into `text`: the cursor is before that character.
    package var cursor: Int
    /// The lines sent, oldest first, at most ``historyLimit``.
    package private(set) var history: [String] = []
    /// Which line of the history is shown, while going through it with ↑ ↓.
    private var recalled: Int?
    /// The line being typed when ↑ was first pressed, to come back to.
    private var draft: [Character] = []

    /// The most lines a history keeps.
    package static let historyLimit = 500

    /// - Parameters:
    ///   - text: the text typed already.
    ///   - cursor: where the cursor is; at the end when nil.
    package init(_ text: String = "", cursor: Int? = nil) {
        self.text = Array(text)
        self.cursor = min(max(0, cursor ?? self.text.count), self.text.count)
    }

    /// The line as a string.
    package var string: String { String(text) }

    /// A new line holding `text`, the cursor at its end; the history is kept.
    /// - Parameter text: the text to start with.
    package mutating func start(with text: String) {
        self.text = Array(text)
        cursor = self.text.count
        recalled = nil
        draft = []
    }

    /// Applies a key.
    /// - Parameter key: the key pressed.
    /// - Returns: what it did.
    package mutating func edit(_ key: Key) -> Outcome {
        switch key {
        case .enter:
            let line = string
            if !line.isEmpty, history.last != line {
                history.append(line)
                if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
            }
            start(with: "")
            return .submitted(line)
        case .escape, .control("c"):
            return .cancelled
        case let .character(character):
            text.insert(character, at: cursor)
            cursor += 1
        case .left:
            cursor = max(0, cursor - 1)
        case .right:
            cursor = min(text.count, cursor + 1)
        case .home, .control("a"):
            cursor = 0
        case .end, .control("e"):
            cursor = text.count
        case .backspace:
            if cursor > 0 {
                text.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete:
            if cursor < text.count { text.remove(at: cursor) }
        case .control("u"):
            text = []
            cursor = 0
        case .up:
            guard !history.isEmpty else { return .editing }
            if recalled == nil { draft = text }
            let index = max(0, (recalled ?? history.count) - 1)
            recalled = index
            text = Array(history[index])
            cursor = text.count
        case .down:
            guard let index = recalled else { return .editing }
            if index + 1 < history.count {
                recalled = index + 1
                text = Array(history[index + 1])
            } else {
                recalled = nil
                text = draft
            }
            cursor = text.count
        default:
            return .ignored
        }
        return .editing
    }

    /// What a terminal line of `columns` columns shows: `label`, then the line (escaped, as
    /// text from anyone is), scrolled sideways so that the cursor stays on screen; and the
    /// cursor's column.
    /// - Parameters:
    ///   - label: the text before the line (a prompt).
    ///   - columns: the width.
    package func visible(after label: String, columns: Int) -> (text: String, cursor: Int) {
        let columns = max(2, columns)
        let shown = text.map { PeerText.escaped(String($0)) }
        let labelWidth = DisplayWidth.of(label)
        var cursorColumn = labelWidth + shown[..<cursor].reduce(0) { $0 + DisplayWidth.of($1) }
        var first = 0
        // Keep the cursor on screen when the text is wider than the line: drop characters from
        // the start of the line until it fits.
        while cursorColumn >= columns - 1, first < cursor {
            cursorColumn -= DisplayWidth.of(shown[first])
            first += 1
        }
        let line = label + shown[first...].joined()
        return (DisplayWidth.truncate(line, to: columns), min(columns - 1, cursorColumn))
    }
}
