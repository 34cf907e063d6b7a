import ActorNode
import Glibc
import Testing

/// The chat room's full screen on real terminals (tmux): two people talking, a script's post
/// holding escape sequences, the commands of the input line, scrolling back, and the terminal
/// given back on the way out.
@Suite("Chat room in tmux", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct ChatRoomTests {
    /// `chat-shell attach` as the pane's own process, then its exit status written to `statusFile`.
    private func room(_ sandbox: Sandbox, _ options: String, statusFile: String) -> String {
        "\(Binary.chatShell.path) attach --socket \(sandbox.socket) \(options); echo $? > \(statusFile)"
    }

    private func exitStatus(_ statusFile: String) -> String? {
        (try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters()
    }

    private func startCore(_ sandbox: Sandbox) async throws -> Started {
        let core = try sandbox.start(.chatCore, ["--socket", sandbox.socket])
        await eventually("chat-core serves") { UnixSocket.isServing(sandbox.socket) }
        return core
    }

    private func post(_ sandbox: Sandbox, _ author: String, _ text: String) async throws -> Int32? {
        try await sandbox.run(.chatShell, ["send", "post", author, text, "--socket", sandbox.socket]).status
    }

    @Test("two rooms: a line posted in one shows at once in the other; a script's escape sequences show escaped; /rename, /clear; Ctrl-C and /quit give the terminal back", .timeLimit(.minutes(1)))
    func twoRooms() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await startCore(sandbox)
        #expect(try await post(sandbox, "carol", "hello from a script") == 0)
        let (statusOfAlice, statusOfBob) = (sandbox.directory + "/alice.status", sandbox.directory + "/bob.status")
        try await tmux.session("alice", room(sandbox, "--name alice", statusFile: statusOfAlice))
        try await tmux.session("bob", room(sandbox, "--name bob", statusFile: statusOfBob))
        for pane in ["alice", "bob"] {
            try await eventually("\(pane) shows the room") { try await tmux.screen(pane).contains("carol: hello from a script") }
            #expect(try await tmux.display(pane, "#{alternate_on}") == "1")
        }
        try await eventually("alice's title and status") {
            let screen = try await tmux.screen("alice")
            return screen.contains(" chat · alice · 1 message") && screen.contains("· 2 shells · ? help")
        }

        // Alice writes a line: it is posted under her name, and Bob sees it at once.
        try await tmux.type("alice", "hi bob")
        try await tmux.keys("alice", "Enter")
        try await eventually("bob sees alice's line") { try await tmux.screen("bob").contains("alice: hi bob") }
        try await tmux.type("bob", "hi alice, 買い物 👍🏽")
        try await tmux.keys("bob", "Enter")
        try await eventually("alice sees bob's line") { try await tmux.screen("alice").contains("bob: hi alice, 買い物 👍🏽") }

        // A script posts escape sequences: both rooms show them as text, and nothing is wiped.
        #expect(try await post(sandbox, "eve", "\u{1B}[2Jwiped\u{1B}]0;owned\u{07}") == 0)
        for pane in ["alice", "bob"] {
            try await eventually("\(pane) shows eve's text escaped") {
                let screen = try await tmux.screen(pane)
                return screen.contains(#"eve: \x1b[2Jwiped\x1b]0;owned\x07"#) && screen.contains("carol: hello from a script")
            }
        }

        // /rename takes the new name and renames this shell's messages; later lines carry it.
        try await tmux.type("alice", "/rename alicia")
        try await tmux.keys("alice", "Enter")
        try await eventually("bob sees alice renamed") {
            let screen = try await tmux.screen("bob")
            return screen.contains("alicia: hi bob") && !screen.contains("alice: hi bob")
        }
        try await tmux.type("alice", "new name")
        try await tmux.keys("alice", "Enter")
        try await eventually("the next line carries the new name") { try await tmux.screen("bob").contains("alicia: new name") }
        #expect(try await tmux.screen("alice").contains(" chat · alicia · "))
        let state = try await sandbox.run(.chatShell, ["state", "--socket", sandbox.socket])
        #expect(state.output.contains("posts: alicia 2, bob 1, carol 1, eve 1"), "\(state.output)")

        // A reject shows in the status line: an empty line of spaces is refused by the core.
        try await tmux.type("bob", "   ")
        try await tmux.keys("bob", "Enter")
        try await eventually("bob sees the reject") { try await tmux.screen("bob").contains("rejected: a message needs some text") }

        // /clear empties the room for everyone.
        try await tmux.type("bob", "/clear")
        try await tmux.keys("bob", "Enter")
        for pane in ["alice", "bob"] {
            try await eventually("\(pane) shows the empty room") { try await tmux.screen(pane).contains("(no messages: type one below)") }
        }

        // Ctrl-C leaves and gives the terminal back; so does /quit.
        try await tmux.keys("alice", "C-c")
        await eventually("alice's room exits") { exitStatus(statusOfAlice) != nil }
        #expect(exitStatus(statusOfAlice) == "0")
        #expect(try await tmux.display("alice", "#{alternate_on}") == "0")
        try await tmux.type("bob", "/quit")
        try await tmux.keys("bob", "Enter")
        await eventually("bob's room exits") { exitStatus(statusOfBob) != nil }
        #expect(exitStatus(statusOfBob) == "0")
        #expect(try await tmux.display("bob", "#{alternate_on}") == "0")
    }

    @Test("the room follows new messages at the bottom, unless scrolled up with PgUp; Esc goes back to the newest; the input line edits and recalls", .timeLimit(.minutes(1)))
    func scrolling() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await startCore(sandbox)
        for number in 1 ... 30 {
            #expect(try await post(sandbox, "bob", "line \(number)") == 0)
        }
        let statusFile = sandbox.directory + "/room.status"
        try await tmux.session("r", room(sandbox, "--name alice", statusFile: statusFile), columns: 60, rows: 12)
        // 12 rows: the title, 9 messages, the input line and the status line.
        try await eventually("the room shows the newest messages") {
            let screen = try await tmux.screen("r")
            return screen.contains("bob: line 30") && screen.contains("bob: line 22") && !screen.contains("bob: line 21")
        }
        #expect(try await post(sandbox, "bob", "line 31") == 0)
        try await eventually("a new message scrolls the room") {
            let screen = try await tmux.screen("r")
            return screen.contains("bob: line 31") && !screen.contains("bob: line 22")
        }

        // Scrolled up, the room stays on what it shows while messages come in.
        try await tmux.keys("r", "PageUp")
        try await eventually("the room shows older messages") {
            let screen = try await tmux.screen("r")
            return screen.contains("bob: line 14") && !screen.contains("bob: line 31")
        }
        let before = try await tmux.screen("r")
        #expect(try await post(sandbox, "bob", "line 32") == 0)
        try await eventually("the title counts the new message") { try await tmux.screen("r").contains("32 messages") }
        let after = try await tmux.screen("r")
        #expect(Self.messages(after) == Self.messages(before), "\(after)")

        // Esc: back to the newest, and following again.
        try await tmux.keys("r", "Escape")
        try await eventually("the room shows the newest again") { try await tmux.screen("r").contains("bob: line 32") }
        #expect(try await post(sandbox, "bob", "line 33") == 0)
        try await eventually("and follows new ones") { try await tmux.screen("r").contains("bob: line 33") }

        // The input line edits in place (← and Home move the cursor) and ↑ brings back a line sent.
        try await tmux.type("r", "world")
        try await tmux.keys("r", "Home")
        try await tmux.type("r", "hello ")
        try await tmux.keys("r", "Enter")
        try await eventually("the edited line is posted") { try await tmux.screen("r").contains("alice: hello world") }
        try await tmux.keys("r", "Up", "End")
        try await tmux.type("r", " again")
        try await tmux.keys("r", "Enter")
        try await eventually("the recalled line is posted") { try await tmux.screen("r").contains("alice: hello world again") }

        try await tmux.keys("r", "C-c")
        await eventually("the room exits") { exitStatus(statusFile) != nil }
        #expect(try await tmux.display("r", "#{alternate_on}") == "0")
    }

    @Test("--name defaults to $USER, else anonymous; SIGTERM gives the terminal back", .timeLimit(.minutes(1)))
    func defaultName() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await startCore(sandbox)
        try await tmux.session("user", "USER=dora exec \(Binary.chatShell.path) attach --socket \(sandbox.socket)")
        try await tmux.session("nobody", "exec env -u USER \(Binary.chatShell.path) attach --socket \(sandbox.socket)")
        try await eventually("dora's room") { try await tmux.screen("user").contains(" chat · dora · 0 messages") }
        try await eventually("an anonymous room") { try await tmux.screen("nobody").contains(" chat · anonymous · 0 messages") }
        try await tmux.type("nobody", "who am I")
        try await tmux.keys("nobody", "Enter")
        try await eventually("dora sees the anonymous line") { try await tmux.screen("user").contains("anonymous: who am I") }

        let pid = Int32(try await tmux.display("user", "#{pane_pid}")) ?? 0
        #expect(pid > 0)
        kill(pid, SIGTERM)
        try await eventually("dora's room exits") { try await tmux.display("user", "#{pane_dead}") == "1" }
        #expect(try await tmux.display("user", "#{alternate_on}") == "0")
    }

    /// The message lines of a room's screen (those with an author).
    private static func messages(_ screen: String) -> [Substring] {
        screen.split(separator: "\n").filter { $0.hasPrefix("bob: ") || $0.hasPrefix("alice: ") }
    }
}
