import ActorNode
import Glibc
import Testing

/// The line shell on a real terminal (tmux) edits its lines with the full screen's line editor:
/// moving in the line, recalling lines sent, the core's news printed above the line being typed,
/// and the terminal given back. (From a pipe it reads plain lines: ChatAppTests, InProcessShellTests.)
@Suite("The line shell's editing in tmux", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct LineEditingTests {
    @Test("a line shell on a terminal edits lines in place, recalls them with ↑, prints changes above the line typed, and gives the terminal back on Ctrl-C and SIGTERM", .timeLimit(.minutes(1)))
    func editing() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await sandbox.startCore()
        let settings = sandbox.directory + "/stty.txt"
        let statusFile = sandbox.directory + "/plain.status"
        try await tmux.session("p", "\(Binary.plainShell.path) attach --socket \(sandbox.socket); echo $? > \(statusFile); stty -a > \(settings)")
        try await eventually("the shell is attached") {
            let screen = try await tmux.screen("p")
            return screen.contains("revision 0: 0 items") && Self.lastLine(screen) == ">"
        }

        // Typed with a mistake, fixed in place: ← ← and a character inserted at the cursor.
        try await tmux.type("p", "add mlk")
        try await tmux.keys("p", "Left", "Left")
        try await tmux.type("p", "i")
        try await eventually("the line shows the fix") { try await tmux.screen("p").contains("> add milk") }
        try await tmux.keys("p", "Enter")
        try await eventually("the item is added") { try await tmux.screen("p").contains("  1 milk") }

        // ↑ brings the line back; Home, Ctrl-E and Backspace edit it.
        try await tmux.keys("p", "Up")
        try await eventually("the line sent is back") { Self.lastLine(try await tmux.screen("p")) == "> add milk" }
        try await tmux.keys("p", "BSpace", "BSpace", "BSpace", "BSpace")
        try await tmux.type("p", "bread")
        try await tmux.keys("p", "Enter")
        try await eventually("the recalled and edited line is sent") { try await tmux.screen("p").contains("  2 bread") }

        // Someone else's change is printed above the line being typed, which stays as it was.
        try await tmux.type("p", "add pa")
        try await eventually("the half-typed line shows") { Self.lastLine(try await tmux.screen("p")) == "> add pa" }
        #expect(try await sandbox.client("send", "add", "from a script").status == 0)
        try await eventually("the change is printed and the line is drawn again below it") {
            let screen = try await tmux.screen("p")
            return screen.contains("  3 from a script") && Self.lastLine(screen) == "> add pa"
        }
        try await tmux.type("p", "sta")
        try await tmux.keys("p", "Enter")
        try await eventually("the line typed around the change is sent whole") { try await tmux.screen("p").contains("  4 pasta") }

        // Ctrl-C ends the shell (status 0) and gives the terminal back as it was.
        try await tmux.keys("p", "C-c")
        await eventually("the shell exits") { (try? String(contentsOfFile: statusFile, encoding: .utf8)) != nil }
        #expect((try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters() == "0")
        await eventually("stty has run") { !((try? String(contentsOfFile: settings, encoding: .utf8)) ?? "").isEmpty }
        let restored = (try? String(contentsOfFile: settings, encoding: .utf8)) ?? ""
        for flag in ["echo", "icanon", "isig", "icrnl"] {
            #expect(restored.split(whereSeparator: \.isWhitespace).contains(Substring(flag)), "\(flag) is back: \(restored)")
        }

        // SIGTERM too. (Started by a shell that records its status, as a person's shell would:
        // tmux reports no exit status for a pane whose own process led the terminal's session
        // and hung it up on its way out, which a pane started with `exec` does.)
        let termStatus = sandbox.directory + "/term.status"
        try await tmux.session("t", "\(Binary.plainShell.path) attach --socket \(sandbox.socket); echo $? > \(termStatus)")
        try await eventually("the second shell is attached") { try await tmux.screen("t").contains("revision 4: 4 items") }
        let pane = Int32(try await tmux.display("t", "#{pane_pid}")) ?? 0
        let children = (try? String(contentsOfFile: "/proc/\(pane)/task/\(pane)/children", encoding: .utf8)) ?? ""
        let pid = Int32(children.split(separator: " ").first ?? "") ?? 0
        #expect(pid > 0, "the shell under the pane's sh: \(children)")
        kill(pid, SIGTERM)
        await eventually("the second shell exits") { (try? String(contentsOfFile: termStatus, encoding: .utf8)) != nil }
        #expect((try? String(contentsOfFile: termStatus, encoding: .utf8))?.trimmingCharacters() == "0", "the shell exits with status 0 on SIGTERM")
    }

    /// The last line of a screen with something on it, without its trailing spaces (where the
    /// line being typed is).
    private static func lastLine(_ screen: String) -> String {
        let line = screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        return String(line.reversed().drop { $0 == " " }.reversed())
    }
}
