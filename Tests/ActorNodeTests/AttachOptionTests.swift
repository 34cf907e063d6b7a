@testable import ActorNode
import Testing

/// An app's own options of `attach` (the chat room's `--name`): parsed for attach alone,
/// handed to its full screen, and listed in `--help`.
@Suite("Attach options")
struct AttachOptionTests {
    private func parse(_ arguments: [String]) throws(CommandFailure) -> (ShellOptions, ShellCommand) {
        try ShellCommand.parse(arguments, program: "log-shell", verbSummary: "add TEXT", attachOptions: ["--name"])
    }

    @Test("--name VALUE goes with attach, before or after it, in either spelling")
    func parsed() throws {
        for arguments in [["attach", "--name", "bob"], ["--name", "bob"], ["--name=bob", "attach"], ["attach", "--name", "ann", "--name", "bob"]] {
            let (options, command) = try parse(arguments)
            #expect(command == .attach)
            #expect(options.attach == ["--name": "bob"], "\(arguments)")
            #expect(AttachOptions(options.attach)["--name"] == "bob")
        }
        #expect(try parse(["attach"]).0.attach.isEmpty)
    }

    @Test("another command refuses it; after a verb it is text; an app without it refuses it")
    func refused() throws {
        #expect(throws: CommandFailure.self) { try parse(["state", "--name", "bob"]) }
        #expect(throws: CommandFailure.self) { try parse(["attach", "--name"]) }
        #expect(try parse(["send", "add", "--name", "bob"]).1 == .send(.verb(["add", "--name", "bob"])))
        #expect(throws: CommandFailure.self) {
            try ShellCommand.parse(["attach", "--name", "bob"], program: "notes-shell", verbSummary: "", attachOptions: [])
        }
    }

    @Test("--help shows it in attach's usage and among the options")
    func help() {
        let text = ShellHelp.text(LogScreen.self)
        #expect(text.contains("  log-shell [attach] [--name NAME]       an interactive shell: full screen on a terminal"))
        #expect(text.contains("\n  --name NAME         the name to write as\n"))
        #expect(!ShellHelp.text(NotesScreen.self).contains("--name"))
    }
}
