import ActorNode
import TodoContract

/// The to-do app's verbs, for `send` and the line shell: `add TEXT`, `clear`, `remove ID`,
/// `toggle ID`, `edit ID TEXT`, `move ID POSITION`, the counter's and the timer's, and `pick`.
enum TodoVerbs {
    private static let itemID = "an item id (a whole number such as 3)"

    static let all: [Verb<AppAction>] = [
        Verb("add", usage: "add TEXT", "add an item at the end", example: #"send add "buy milk""#) { arguments throws(VerbMistake) in
            .todo(.add(text: try arguments.text()))
        },
        Verb("clear", "remove every item", example: "send clear") { arguments throws(VerbMistake) in
            try arguments.end()
            return .todo(.clear)
        },
        Verb("remove", aliases: ["rm", "delete"], usage: "remove ID", "remove an item", example: "send remove 3") { arguments throws(VerbMistake) in
            try one(arguments)
            return .todo(.remove(id: try arguments.integer(itemID, minimum: 1, hash: true)))
        },
        Verb("toggle", aliases: ["done"], usage: "toggle ID", "mark an item done / not done", example: "send toggle 3") { arguments throws(VerbMistake) in
            try one(arguments)
            return .todo(.toggle(id: try arguments.integer(itemID, minimum: 1, hash: true)))
        },
        Verb("edit", usage: "edit ID TEXT", "change an item's text", example: #"send edit 3 "oat milk""#) { arguments throws(VerbMistake) in
            guard arguments.remaining.count >= 2 else { throw .usage(arguments.usage) }
            return .todo(.edit(id: try arguments.integer(itemID, minimum: 1, hash: true), text: try arguments.text()))
        },
        Verb("move", aliases: ["mv"], usage: "move ID POSITION", "move an item (1 is the top)", example: "send move 3 1") { arguments throws(VerbMistake) in
            guard arguments.remaining.count == 2 else { throw .usage(arguments.usage) }
            return .todo(.move(
                id: try arguments.integer(itemID, minimum: 1, hash: true),
                position: try arguments.integer("a position (1 is the top of the list)", minimum: 1)))
        },
        Verb("counter", forms: [
            .init("counter increment|decrement|reset|randomize", "", example: "send counter increment"),
            .init("counter set N", "set the counter", example: "send counter set 5"),
        ]) { arguments throws(VerbMistake) in
            .counter(try counter(arguments.rest()))
        },
        Verb("timer", forms: [
            .init("timer start ID [--seconds S]", "focus on an item (default 25 minutes); a new start replaces a running focus", example: "send timer start 3"),
            .init("timer stop", "end the focus", example: "send timer stop"),
        ]) { arguments throws(VerbMistake) in
            .timer(try timer(&arguments))
        },
        Verb("pick", "focus on a random item not done", example: "send pick") { arguments throws(VerbMistake) in
            try arguments.end()
            return .timer(.pick)
        },
    ]

    /// Exactly one word is expected after the verb.
    private static func one(_ arguments: VerbArguments) throws(VerbMistake) {
        guard arguments.remaining.count == 1 else { throw .usage(arguments.usage) }
    }

    private static func counter(_ words: [String]) throws(VerbMistake) -> CounterAction {
        let usage = "counter increment|decrement|reset|randomize, or counter set N"
        func alone(_ action: CounterAction) throws(VerbMistake) -> CounterAction {
            guard words.count == 1 else { throw .usage(usage) }
            return action
        }
        switch words.first {
        case "increment"?, "inc"?, "+"?: return try alone(.increment)
        case "decrement"?, "dec"?, "-"?: return try alone(.decrement)
        case "reset"?: return try alone(.reset)
        case "randomize"?, "random"?: return try alone(.randomize)
        case "set"?:
            guard words.count == 2 else { throw .usage("counter set N") }
            guard let value = Int(words[1]) else { throw VerbMistake("'\(words[1])' is not a whole number") }
            return .set(value: value)
        default:
            throw .usage(usage)
        }
    }

    private static func timer(_ arguments: inout VerbArguments) throws(VerbMistake) -> TimerAction {
        switch arguments.remaining.first {
        case "start"?:
            _ = try arguments.word()
            let seconds = try arguments.integer(option: "--seconds", "a whole number of seconds above 0", minimum: 1)
            guard arguments.remaining.count == 1 else { throw .usage("timer start ID [--seconds S]") }
            return .start(id: try arguments.integer(itemID, minimum: 1, hash: true), seconds: seconds)
        case "stop"?:
            guard arguments.remaining.count == 1 else { throw .usage("timer stop") }
            _ = try arguments.word()
            return .stop
        default:
            throw .usage("timer start ID [--seconds S], or timer stop")
        }
    }
}
