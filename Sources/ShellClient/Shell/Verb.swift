import TodoContract
import Wire

/// The human verbs of `send` and the line-mode shell, turned into actions:
/// `add TEXT`, `clear`, `remove ID`, `toggle ID`, `edit ID TEXT`, `move ID POSITION`.
enum Verb {
    /// A one-line summary of the verbs, for errors and help.
    static let summary = "add TEXT, clear, remove ID, toggle ID, edit ID TEXT, move ID POSITION, counter increment|decrement|reset|randomize|set N, timer start ID [--seconds S], timer stop, pick"

    struct Mistake: Error, CustomStringConvertible {
        var description: String
    }

    /// The action for `words` (the verb, then its arguments). Text arguments may be one quoted
    /// word or several words, which are joined with single spaces.
    static func parse(_ words: [String]) throws(Mistake) -> AppAction {
        guard let verb = words.first else {
            throw Mistake(description: "no verb given (expected one of: \(summary))")
        }
        let arguments = Array(words.dropFirst())
        switch verb {
        case "add":
            return .todo(.add(text: try text(arguments, usage: "add TEXT")))
        case "clear":
            try expect(arguments, count: 0, usage: "clear")
            return .todo(.clear)
        case "remove", "rm", "delete":
            try expect(arguments, count: 1, usage: "remove ID")
            return .todo(.remove(id: try id(arguments[0])))
        case "toggle", "done":
            try expect(arguments, count: 1, usage: "toggle ID")
            return .todo(.toggle(id: try id(arguments[0])))
        case "edit":
            guard arguments.count >= 2 else { throw Mistake(description: "usage: edit ID TEXT") }
            return .todo(.edit(id: try id(arguments[0]), text: try text(Array(arguments.dropFirst()), usage: "edit ID TEXT")))
        case "move", "mv":
            try expect(arguments, count: 2, usage: "move ID POSITION")
            return .todo(.move(id: try id(arguments[0]), position: try position(arguments[1])))
        case "counter":
            return .counter(try counter(arguments))
        case "timer":
            return .timer(try timer(arguments))
        case "pick":
            try expect(arguments, count: 0, usage: "pick")
            return .timer(.pick)
        default:
            throw Mistake(description: "unknown verb '\(verb)' (expected one of: \(summary))")
        }
    }

    private static func counter(_ arguments: [String]) throws(Mistake) -> CounterAction {
        let usage = "counter increment|decrement|reset|randomize, or counter set N"
        switch arguments.first {
        case "increment"?, "inc"?, "+"?:
            try expect(arguments, count: 1, usage: usage)
            return .increment
        case "decrement"?, "dec"?, "-"?:
            try expect(arguments, count: 1, usage: usage)
            return .decrement
        case "reset"?:
            try expect(arguments, count: 1, usage: usage)
            return .reset
        case "randomize"?, "random"?:
            try expect(arguments, count: 1, usage: usage)
            return .randomize
        case "set"?:
            try expect(arguments, count: 2, usage: "counter set N")
            guard let value = Int(arguments[1]) else {
                throw Mistake(description: "'\(arguments[1])' is not a whole number")
            }
            return .set(value: value)
        default:
            throw Mistake(description: "usage: \(usage)")
        }
    }

    private static func timer(_ arguments: [String]) throws(Mistake) -> TimerAction {
        switch arguments.first {
        case "start"?:
            var rest = Array(arguments.dropFirst())
            var seconds: Int?
            if let index = rest.firstIndex(where: { $0 == "--seconds" || $0.hasPrefix("--seconds=") }) {
                let option = rest.remove(at: index)
                let text: String
                if option == "--seconds" {
                    guard index < rest.count else { throw Mistake(description: "--seconds needs a number of seconds") }
                    text = rest.remove(at: index)
                } else {
                    text = String(option.dropFirst("--seconds=".count))
                }
                guard let value = Int(text), value > 0 else {
                    throw Mistake(description: "--seconds needs a whole number of seconds above 0, not '\(text)'")
                }
                seconds = value
            }
            guard rest.count == 1 else { throw Mistake(description: "usage: timer start ID [--seconds S]") }
            return .start(id: try id(rest[0]), seconds: seconds)
        case "stop"?:
            try expect(arguments, count: 1, usage: "timer stop")
            return .stop
        default:
            throw Mistake(description: "usage: timer start ID [--seconds S], or timer stop")
        }
    }

    private static func expect(_ arguments: [String], count: Int, usage: String) throws(Mistake) {
        guard arguments.count == count else { throw Mistake(description: "usage: \(usage)") }
    }

    private static func text(_ arguments: [String], usage: String) throws(Mistake) -> String {
        guard !arguments.isEmpty else { throw Mistake(description: "usage: \(usage)") }
        return arguments.joined(separator: " ")
    }

    private static func id(_ word: String) throws(Mistake) -> Int {
        let digits = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard let id = Int(digits), id > 0 else {
            throw Mistake(description: "'\(word)' is not an item id (a whole number such as 3)")
        }
        return id
    }

    private static func position(_ word: String) throws(Mistake) -> Int {
        guard let position = Int(word), position > 0 else {
            throw Mistake(description: "'\(word)' is not a position (1 is the top of the list)")
        }
        return position
    }

    /// An action written as JSON, e.g. `{"add":{"text":"buy milk"}}`.
    static func parseJSON(_ text: String) throws(Mistake) -> AppAction {
        do {
            return try WireJSON.decode(AppAction.self, from: Array(text.utf8))
        } catch {
            throw Mistake(description: "not an action: \(describeDecodingFailure(error))")
        }
    }

    /// A line of `send -` or of the line-mode shell: JSON if it starts with `{` or `"`, else words.
    static func parseLine(_ line: String) throws(Mistake) -> AppAction {
        let trimmed = line.drop { $0.isWhitespace }
        if trimmed.first == "{" || trimmed.first == "\"" {
            return try parseJSON(String(trimmed))
        }
        do {
            return try parse(try Words.split(line))
        } catch let error as Words.UnterminatedQuote {
            throw Mistake(description: error.description)
        } catch let error as Mistake {
            throw error
        } catch {
            throw Mistake(description: "\(error)")
        }
    }
}
