@testable import ActorNode
import Wire

/// A note of the test apps' state: an id that stays, and a text.
struct Note: Codable, Sendable, Equatable, Identifiable {
    var id: Int
    var text: String
}

struct NotesState: Codable, Sendable, Equatable {
    var notes: [Note] = []

    init(_ notes: [Note] = []) {
        self.notes = notes
    }

    /// Notes 1 to `count`, each `note N`.
    static func numbered(_ count: Int) -> NotesState {
        NotesState((1 ... max(1, count)).prefix(count).map { Note(id: $0, text: "note \($0)") })
    }
}

enum NotesAction: Codable, Sendable, Equatable {
    case add(String)
    case remove(Int)
}

/// The test apps' contract.
enum Notes: AppContract {
    typealias State = NotesState
    typealias Action = NotesAction
    static let name = "notes"
}

/// Counts the rows a view made, for the tests that a long list costs only the rows shown.
final class RowsMade {
    var count = 0
}

/// A screen of notes with a selection, driven by keys: `d` removes the selected note, `a` asks
/// for a new one.
enum NotesScreen: ScreenApp {
    typealias Contract = Notes
    static let program = "notes-shell"
    static let summary = "notes, for tests"
    static let verbs: [Verb<NotesAction>] = []

    static func render(_ state: NotesState, revision: UInt64) -> String { "" }

    static func ui(_ options: AttachOptions) -> RowsMade { RowsMade() }

    static func view(_ state: NotesState, _ made: RowsMade) -> Screen<Int> {
        Screen(header: [Row(" notes", .bold)], list: .selecting(state.notes, empty: "  (none)") { note, selected in
            made.count += 1
            return Row([Cell(selected ? "> " : "  "), .fill(note.text), Cell(" #\(note.id)")])
        }, footer: [Row(" \(state.notes.count) notes")])
    }

    static let keys: [KeyBinding<NotesScreen>] = [
        KeyBinding("a", help: "add a note") { _ in [.prompt(add)] },
        KeyBinding("d", help: "remove the selected note") { screen in screen.selected.map { [.send(.remove($0))] } ?? [] },
    ]

    static let add = Prompt<NotesScreen>("add: ") { text, _ in [.send(.add(text))] }
}

/// A log of notes shown from its end, with an input line, as a chat: the UI state is a name
/// that `/name NEW` changes.
enum LogScreen: ScreenApp {
    typealias Contract = Notes
    static let program = "log-shell"
    static let summary = "a log, for tests"
    static let verbs: [Verb<NotesAction>] = []
    static let attachOptions = [AttachOption("--name", "NAME", "the name to write as")]

    static func render(_ state: NotesState, revision: UInt64) -> String { "" }

    static func ui(_ options: AttachOptions) -> String { options["--name"] ?? "nobody" }

    static func view(_ state: NotesState, _ name: String) -> Screen<Int> {
        Screen(header: [Row(" log · \(name)")], list: .tail(state.notes) { Row($0.text) })
    }

    static let input: Prompt<LogScreen>? = Prompt("say: ", help: [("/name NEW", "write as NEW")]) { text, screen in
        if text.hasPrefix("/name ") {
            screen.ui = String(text.dropFirst(6))
            return []
        }
        return text == "/quit" ? [.quit] : [.send(.add(screen.ui + ": " + text))]
    }
}
