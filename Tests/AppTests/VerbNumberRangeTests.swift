import Testing
@testable import ActorNode
@testable import ShellClient
@testable import TodoContract
@testable import Wire

/// Numbers people type beyond Int's range (`send move 3 9223372036854775808`,
/// `timer start 1 --seconds 99999999999999999999`) are usage mistakes: one line that says which
/// word is wrong, and exit status 2, before anything is sent. The limits themselves are read
/// as they are; the core judges them.
@Suite("Typed numbers at and beyond Int's range")
struct VerbNumberRangeTests {
    private let table = VerbTable(verbs: TodoVerbs.all)

    @Test("a number beyond Int's range, or below a verb's minimum, is a mistake that names the word", arguments: [
        (["move", "3", "9223372036854775808"], "'9223372036854775808' is not a position (1 is the top of the list)"),
        (["move", "3", "-9223372036854775809"], "'-9223372036854775809' is not a position (1 is the top of the list)"),
        (["move", "3", "-9223372036854775808"], "'-9223372036854775808' is not a position (1 is the top of the list)"),
        (["move", "3", "1e19"], "'1e19' is not a position (1 is the top of the list)"),
        (["move", "9223372036854775808", "1"], "'9223372036854775808' is not an item id (a whole number such as 3)"),
        (["toggle", "-9223372036854775808"], "'-9223372036854775808' is not an item id (a whole number such as 3)"),
        (["remove", "#99999999999999999999"], "'#99999999999999999999' is not an item id (a whole number such as 3)"),
        (["edit", "18446744073709551616", "x"], "'18446744073709551616' is not an item id (a whole number such as 3)"),
        (["timer", "start", "9223372036854775808"], "'9223372036854775808' is not an item id (a whole number such as 3)"),
        (["timer", "start", "1", "--seconds", "99999999999999999999"], "--seconds needs a whole number of seconds above 0, not '99999999999999999999'"),
        (["timer", "start", "1", "--seconds=-9223372036854775808"], "--seconds needs a whole number of seconds above 0, not '-9223372036854775808'"),
        (["counter", "set", "9223372036854775808"], "'9223372036854775808' is not a whole number"),
        (["counter", "set", "-9223372036854775809"], "'-9223372036854775809' is not a whole number"),
    ])
    func beyondRange(words: [String], message: String) {
        do {
            let action = try table.parse(words)
            Issue.record("\(words) parsed as \(action)")
        } catch {
            #expect(error.description == message)
        }
        // A line of `send -` or of the line shell says the same.
        let mistake = #expect(throws: VerbMistake.self) { try table.parseLine(words.joined(separator: " ")) }
        #expect(mistake?.description == message)
        // `send` stops there, with a usage error: exit status 2 and one line.
        do {
            let options = ShellOptions(socket: "/nonexistent/cama-verb-number-range.sock", timeoutOption: .milliseconds(200))
            _ = try SendCommand<TodoShell>.one({ verbs throws(VerbMistake) in try verbs.parse(words) }, options: options)
            Issue.record("\(words) was sent")
        } catch {
            #expect(error.status == .usage)
            #expect(error.status.rawValue == 2)
            #expect(error.message == "\(message); see 'shell-client --help'")
        }
    }

    @Test("the limits themselves are read exactly, for the core to judge", arguments: [
        (["move", "9223372036854775807", "9223372036854775807"], AppAction.todo(.move(id: .max, position: .max))),
        (["counter", "set", "-9223372036854775808"], .counter(.set(value: .min))),
        (["counter", "set", "9223372036854775807"], .counter(.set(value: .max))),
        (["timer", "start", "#9223372036854775807", "--seconds", "9223372036854775807"], .timer(.start(id: .max, seconds: .max))),
    ])
    func limits(words: [String], expected: AppAction) throws {
        #expect(try table.parse(words) == expected)
    }
}
