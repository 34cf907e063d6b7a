import Wire

/// A word people type to make an action: `add "buy milk"`, `toggle 3`. A shell app lists its
/// verbs; the kit finds the one typed and gives it the words that follow.
public struct Verb<Action>: Sendable {
    /// One way of writing a verb, for `--help`: `add TEXT`, what it does, an example.
    public struct Form: Sendable {
        public let usage: String
        public let summary: String
        public let example: String?

        /// - Parameters:
        ///   - usage: how it is written: `counter set N`.
        ///   - summary: what it does.
        ///   - example: an example: `send counter set 5`.
        public init(_ usage: String, _ summary: String, example: String? = nil) {
            self.usage = usage
            self.summary = summary
            self.example = example
        }
    }

    /// The word that names it.
    public let name: String
    /// Other words that name it (`rm` for `remove`).
    public let aliases: [String]
    /// The ways it is written.
    public let forms: [Form]
    /// The action for the words after the verb; what it throws is a ``VerbMistake`` (the
    /// arguments' helpers throw nothing else), and anything else is turned into one.
    let parse: @Sendable (inout VerbArguments) throws -> Action

    /// How it is written, every form: `add TEXT`, or `timer start ID, timer stop`.
    public var usage: String { Words.join(forms.map { $0.usage }[...], separator: ", ") }

    /// A verb written one way.
    /// - Parameters:
    ///   - name: the word that names it.
    ///   - aliases: other words that name it.
    ///   - usage: how it is written; by default its name alone.
    ///   - summary: what it does.
    ///   - example: an example for `--help`.
    ///   - parse: the action for the words after the verb (use the arguments' helpers; they
    ///     throw mistakes that quote the usage): `{ .post(author: try $0.word(), text: try
    ///     $0.text()) }`.
    public init(
        _ name: String, aliases: [String] = [], usage: String? = nil, _ summary: String, example: String? = nil,
        parse: @escaping @Sendable (inout VerbArguments) throws -> Action
    ) {
        self.init(name, aliases: aliases, forms: [Form(usage ?? name, summary, example: example)], parse: parse)
    }

    /// A verb written several ways (`counter increment`, `counter set N`).
    /// - Parameters:
    ///   - name: the word that names it.
    ///   - aliases: other words that name it.
    ///   - forms: the ways it is written.
    ///   - parse: the action for the words after the verb.
    public init(
        _ name: String, aliases: [String] = [], forms: [Form],
        parse: @escaping @Sendable (inout VerbArguments) throws -> Action
    ) {
        self.name = name
        self.aliases = aliases
        self.forms = forms
        self.parse = parse
    }

    /// The action for the words after the verb.
    /// - Parameter words: the arguments.
    public func action(for words: [String]) throws(VerbMistake) -> Action {
        var arguments = VerbArguments(words, usage: usage)
        let action: Action
        do {
            action = try parse(&arguments)
        } catch let mistake as VerbMistake {
            throw mistake
        } catch {
            throw VerbMistake("\(error) (\(VerbMistake.usage(usage)))")
        }
        // Words the verb did not take are a mistake, without a `try words.end()` in every verb.
        try arguments.end()
        return action
    }
}

/// A verb that could not be read, in words for the person who typed it.
public struct VerbMistake: Error, Sendable, CustomStringConvertible {
    public var description: String

    /// - Parameter description: what is wrong.
    public init(_ description: String) {
        self.description = description
    }

    /// `usage: add TEXT`.
    /// - Parameter usage: how the verb is written.
    public static func usage(_ usage: String) -> VerbMistake {
        VerbMistake("usage: \(usage)")
    }
}

/// The words after a verb, taken one at a time.
public struct VerbArguments: Sendable {
    /// How the verb is written, for mistakes.
    public let usage: String
    /// The words not taken yet.
    public private(set) var remaining: ArraySlice<String>

    /// - Parameters:
    ///   - words: the words after the verb.
    ///   - usage: how the verb is written.
    public init(_ words: [String], usage: String) {
        self.usage = usage
        remaining = words[...]
    }

    /// The next word.
    public mutating func word() throws(VerbMistake) -> String {
        guard let word = remaining.popFirst() else { throw .usage(usage) }
        return word
    }

    /// The rest of the words as they are (perhaps none), for a verb that reads them itself.
    public mutating func rest() -> [String] {
        defer { remaining = [] }
        return Array(remaining)
    }

    /// The rest of the words, joined with single spaces (at least one).
    public mutating func text() throws(VerbMistake) -> String {
        guard !remaining.isEmpty else { throw .usage(usage) }
        defer { remaining = [] }
        return Words.join(remaining, separator: " ")
    }

    /// The next word as a whole number of at least `minimum`, `#3` read as 3 when `hash`.
    /// - Parameters:
    ///   - what: what the number must be, as the mistake ends: `integer("an item id (a whole
    ///     number such as 3)")` refuses `x` with `'x' is not an item id (a whole number such
    ///     as 3)`.
    ///   - minimum: the smallest number accepted (a smaller one is the same mistake).
    ///   - hash: whether `#3` reads as 3.
    public mutating func integer(_ what: String, minimum: Int = .min, hash: Bool = false) throws(VerbMistake) -> Int {
        let word = try word()
        let digits = hash && word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard let number = Int(digits), number >= minimum else {
            throw VerbMistake("'\(word)' is not \(what)")
        }
        return number
    }

    /// Takes `--name VALUE` or `--name=VALUE` from anywhere among the remaining words.
    /// - Parameter name: the option, with its dashes.
    public mutating func option(_ name: String) throws(VerbMistake) -> String? {
        guard let index = remaining.firstIndex(where: { $0 == name || $0.hasPrefix(name + "=") }) else { return nil }
        var words = Array(remaining)
        let option = words.remove(at: index - remaining.startIndex)
        let value: String
        if option == name {
            guard index - remaining.startIndex < words.count else { throw VerbMistake("\(name) needs a value") }
            value = words.remove(at: index - remaining.startIndex)
        } else {
            value = String(option.dropFirst(name.count + 1))
        }
        remaining = words[...]
        return value
    }

    /// `--name N` or `--name=N` from anywhere among the remaining words, as a whole number of at
    /// least `minimum`; nil when the option is not there.
    /// - Parameters:
    ///   - name: the option, with its dashes: `--in`.
    ///   - what: what the number must be, as the mistake ends: `integer(option: "--in", "a
    ///     number of seconds")` refuses `--in x` with `--in needs a number of seconds, not 'x'`.
    ///   - minimum: the smallest number accepted.
    public mutating func integer(option name: String, _ what: String, minimum: Int = .min) throws(VerbMistake) -> Int? {
        let text: String?
        do {
            text = try option(name)
        } catch {
            throw VerbMistake("\(name) needs \(what)")
        }
        guard let text else { return nil }
        guard let number = Int(text), number >= minimum else { throw VerbMistake("\(name) needs \(what), not '\(PeerText.escaped(text))'") }
        return number
    }

    /// Throws the usage unless every word was taken (the kit checks it after every verb too).
    public func end() throws(VerbMistake) {
        guard remaining.isEmpty else { throw .usage(usage) }
    }
}

/// An app's verbs, and the three ways a shell reads an action: words, JSON, or a line of
/// either.
struct VerbTable<Action: Codable & Sendable>: Sendable {
    let verbs: [Verb<Action>]

    /// The verbs' examples as JSON, a few to a line, for `--help`: each example (`send add
    /// "buy milk"`) read as the verb reads it and written as the action's JSON, so that the
    /// JSON shown is always what the shell sends.
    var jsonExamples: [String] {
        var lines: [String] = []
        var line = ""
        for form in verbs.flatMap(\.forms) {
            guard var words = form.example.flatMap({ try? Words.split($0) }) else { continue }
            if words.first == "send" { words.removeFirst() }
            guard let action = try? parse(words), let json = try? WireJSON.string(action) else { continue }
            if !line.isEmpty, line.count + 2 + json.count > 88 {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : "  ") + json
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `add TEXT, clear, remove ID, ...`, for mistakes and help.
    var summary: String { verbs.map(\.usage).joined(separator: ", ") }

    /// The action for `words`: the verb, then its arguments.
    func parse(_ words: [String]) throws(VerbMistake) -> Action {
        guard let name = words.first else {
            throw VerbMistake("no verb given (expected one of: \(summary))")
        }
        // By index: `first(where:)` over verbs of a generic action is the stdlib's unspecialized
        // version, whose first call costs a one-shot `send` 130,000 instructions of type lookups.
        var found: Verb<Action>?
        for index in verbs.indices where verbs[index].name == name || verbs[index].aliases.contains(name) {
            found = verbs[index]
            break
        }
        guard let verb = found else {
            throw VerbMistake("unknown verb '\(PeerText.escaped(name))' (expected one of: \(summary))")
        }
        return try verb.action(for: Array(words.dropFirst()))
    }

    /// An action written as JSON, e.g. `{"add":{"text":"buy milk"}}`.
    func parseJSON(_ text: String) throws(VerbMistake) -> Action {
        do {
            return try WireJSON.decode(Action.self, from: Array(text.utf8))
        } catch {
            throw VerbMistake("not an action: \(describeDecodingFailure(error))")
        }
    }

    /// A line of `send -` or of the line shell: JSON if it starts with `{` or `"`, else words.
    func parseLine(_ line: String) throws(VerbMistake) -> Action {
        let trimmed = line.drop { $0.isWhitespace }
        if trimmed.first == "{" || trimmed.first == "\"" {
            return try parseJSON(String(trimmed))
        }
        let words: [String]
        do {
            words = try Words.split(line)
        } catch {
            throw VerbMistake(error.description)
        }
        return try parse(words)
    }
}
