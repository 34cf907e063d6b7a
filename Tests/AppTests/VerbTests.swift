import Testing
@testable import ActorNode
@testable import ShellClient
@testable import TodoContract
@testable import Wire

@Suite("Human verbs")
struct VerbTests {
    private let table = VerbTable(verbs: TodoVerbs.all)

    @Test("words split like a shell's", arguments: [
        (#"add "buy milk""#, ["add", "buy milk"]),
        ("add buy milk", ["add", "buy", "milk"]),
        (#"edit 3 'oat "milk"'"#, ["edit", "3", #"oat "milk""#]),
        (#"add a\ b"#, ["add", "a b"]),
        (#"add "say \"hi\"""#, ["add", #"say "hi""#]),
        ("  toggle   2  ", ["toggle", "2"]),
        (#"add """#, ["add", ""]),
    ])
    func words(line: String, expected: [String]) throws {
        #expect(try Words.split(line) == expected)
    }

    @Test("an unterminated quote is an error")
    func unterminatedQuote() {
        #expect(throws: Words.UnterminatedQuote.self) { try Words.split(#"add "oops"#) }
    }

    @Test("verbs become actions", arguments: [
        (["add", "buy milk"], AppAction.todo(.add(text: "buy milk"))),
        (["add", "buy", "milk"], .todo(.add(text: "buy milk"))),
        (["clear"], .todo(.clear)),
        (["remove", "3"], .todo(.remove(id: 3))),
        (["toggle", "#3"], .todo(.toggle(id: 3))),
        (["edit", "3", "oat", "milk"], .todo(.edit(id: 3, text: "oat milk"))),
        (["move", "3", "1"], .todo(.move(id: 3, position: 1))),
    ])
    func verbs(words: [String], expected: AppAction) throws {
        #expect(try table.parse(words) == expected)
    }

    @Test("mistakes say what was expected", arguments: [
        (["frob"], "unknown verb 'frob'"),
        ([], "no verb given"),
        (["add"], "usage: add TEXT"),
        (["toggle"], "usage: toggle ID"),
        (["toggle", "x"], "'x' is not an item id"),
        (["remove", "0"], "'0' is not an item id"),
        (["move", "1", "0"], "'0' is not a position"),
        (["clear", "now"], "usage: clear"),
        (["edit", "3"], "usage: edit ID TEXT"),
    ])
    func mistakes(words: [String], message: String) {
        do {
            _ = try table.parse(words)
            Issue.record("parsed \(words)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test("a line is JSON when it starts with { or \", words otherwise")
    func lines() throws {
        #expect(try table.parseLine(#"{"toggle":{"id":4}}"#) == .todo(.toggle(id: 4)))
        #expect(try table.parseLine(#"  "clear""#) == .todo(.clear))
        #expect(try table.parseLine(#"add "x y""#) == .todo(.add(text: "x y")))
        #expect(throws: VerbMistake.self) { try table.parseLine(#"{"toggle":{}}"#) }
    }
}
