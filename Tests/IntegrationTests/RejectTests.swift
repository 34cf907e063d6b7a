import Testing
import Wire

/// Invalid actions are rejected with the core's reason, exit status 1, and change nothing.
@Suite("Rejects through the real binaries")
struct RejectTests {
    @Test("unknown ids, empty text and bad positions are rejected, and the state does not change")
    func rejectsChangeNothing() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "buy milk").status == 0)

        let rejected: [([String], String)] = [
            (["send", "toggle", "42"], "rejected: no item with id 42 (unknown_item)"),
            (["send", "remove", "42"], "rejected: no item with id 42 (unknown_item)"),
            (["send", "add", "   "], "rejected: an item needs some text (empty_text)"),
            (["send", "move", "1", "5"], "rejected: position 5 is out of range 1...1 (bad_position)"),
            (["send", "--json", #"{"edit":{"id":1,"text":""}}"#], "rejected: an item needs some text (empty_text)"),
        ]
        for (arguments, message) in rejected {
            let result = try await sandbox.run(.shellClient, arguments + ["--socket", sandbox.socket])
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.error == "shell-client: \(message)\n", "\(arguments)")
            #expect(result.output.isEmpty)
        }

        let state = try await sandbox.client("state", "--json")
        #expect(state.output == #"{"counter":{"value":0},"revision":1,"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[{"done":false,"id":1,"pomodoros":0,"text":"buy milk"}],"nextId":2}}"# + "\n")
    }

    @Test("send - reports each bad line by number, applies the good ones, and exits with the worst status")
    func sendLinesReportsEachLine() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        let input = """
        add first
        # a comment, then a blank line

        toggle 7
        {"add":{"text":"second"}}
        frobnicate 3
        toggle 1
        """
        let result = try await sandbox.client("send", "-", input: input)
        #expect(result.status == 2, "\(result)")
        #expect(result.error.contains("shell-client: line 4: rejected: no item with id 7 (unknown_item)"))
        #expect(result.error.contains("shell-client: line 6: unknown verb 'frobnicate'"))
        let state = try await sandbox.client("state", "--json")
        #expect(state.output == #"{"counter":{"value":0},"revision":3,"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[{"done":true,"id":1,"pomodoros":0,"text":"first"},{"done":false,"id":2,"pomodoros":0,"text":"second"}],"nextId":3}}"# + "\n")
    }

    @Test("an action the client cannot parse is a usage error, never sent")
    func unparsableIsUsage() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        for arguments in [["send", "--json", #"{"frob":{}}"#], ["send", "--json", "{oops"], ["send", "toggle", "three"]] {
            let result = try await sandbox.run(.shellClient, arguments + ["--socket", sandbox.socket])
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
        }
        #expect(try await sandbox.client("state").output.hasPrefix("revision 0: no items\n"))
    }
}
