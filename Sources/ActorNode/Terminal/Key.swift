/// A key a person pressed, decoded from the bytes a terminal sends: what a full screen's keys
/// are bound to (``KeyBinding``). A character literal is a key: `"a"` is `.character("a")`.
public enum Key: Hashable, Sendable, ExpressibleByExtendedGraphemeClusterLiteral {
    /// A character typed (a letter, a digit, a space, any printable character).
    case character(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case enter, escape, backspace, delete, tab
    /// Ctrl and a letter (Ctrl-A is `control("a")`); Ctrl-C is also `control("c")`.
    case control(Character)

    /// `"a"` as a key: `.character("a")`.
    /// - Parameter value: the character.
    public init(extendedGraphemeClusterLiteral value: Character) {
        self = .character(value)
    }

    /// `"a"` as a key: `.character("a")`.
    /// - Parameter value: the character.
    public init(unicodeScalarLiteral value: Character) {
        self = .character(value)
    }

    /// The key as the help names it: `a`, `space`, `↑`, `PgUp`, `Ctrl-L`.
    public var name: String {
        switch self {
        case .character(" "): return "space"
        case let .character(character): return String(character)
        case .up: return "↑"
        case .down: return "↓"
        case .left: return "←"
        case .right: return "→"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PgUp"
        case .pageDown: return "PgDn"
        case .enter: return "Enter"
        case .escape: return "Esc"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .tab: return "Tab"
        case let .control(letter): return "Ctrl-" + letter.uppercased()
        }
    }
}
