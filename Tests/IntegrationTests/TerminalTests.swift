import ActorNode
import Glibc
import Testing
import Wire

/// The full-screen shell on real terminals (tmux): two people at once, a script, help,
/// rejects, resizes, and the terminal always given back.
@Suite("Full-screen shell in tmux", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct TerminalTests {
    /// The shell as the pane's own process (its pid is the pane's), for signalling it.
    private func attach(_ sandbox: Sandbox, _ extra: String = "") -> String {
        "exec \(Binary.shellClient.path) attach --socket \(sandbox.socket) \(extra)"
    }

    /// The shell, then its exit status written to `statusFile` once it has ended. (tmux itself
    /// does not always reap a pane's process in time to report its status.)
    private func attachReportingStatus(_ sandbox: Sandbox, to statusFile: String, _ extra: String = "") -> String {
        "\(Binary.shellClient.path) attach --socket \(sandbox.socket) \(extra); echo $? > \(statusFile)"
    }

    /// The exit status a session wrote with `attachReportingStatus`, or nil while it runs.
    private func exitStatus(_ statusFile: String) -> String? {
        (try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters()
    }

    @Test("two shells see each other's changes and a scripted send; keys, help and rejects work; q and SIGTERM restore the terminal")
    func twoShells() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "buy milk").status == 0)
        #expect(try await sandbox.client("send", "add", "call mom").status == 0)
        let statusOfA = sandbox.directory + "/a.status"
        try await tmux.session("a", attachReportingStatus(sandbox, to: statusOfA))
        try await tmux.session("b", attach(sandbox))
        for pane in ["a", "b"] {
            try await eventually("\(pane) shows the list") { try await tmux.screen(pane).contains("2 items, 0 done") }
            #expect(try await tmux.display(pane, "#{alternate_on}") == "1")
        }
        try await eventually("a sees that b attached") { try await tmux.screen("a").contains("2 shells") }

        // a adds an item by typing it: b sees it.
        try await tmux.keys("a", "a")
        try await tmux.type("a", "from a")
        try await tmux.keys("a", "Enter")
        try await eventually("b sees a's item") { try await tmux.screen("b").contains("3 [ ] from a") }

        // b moves down and toggles the second item: a sees it done.
        try await tmux.keys("b", "j", "x")
        try await eventually("a sees b's toggle") { try await tmux.screen("a").contains("2 [x] call mom") }

        // A script changes the state: both see it.
        #expect(try await sandbox.client("send", "add", "from a script").status == 0)
        for pane in ["a", "b"] {
            try await eventually("\(pane) sees the script's item") { try await tmux.screen(pane).contains("4 [ ] from a script") }
        }

        // Help opens and closes.
        try await tmux.keys("a", "?")
        try await eventually("a shows the help") { try await tmux.screen("a").contains("keys (? Esc q close this)") }
        try await tmux.keys("a", "Escape")
        try await eventually("the help closes") { !(try await tmux.screen("a").contains("keys (? Esc q close this)")) }

        // An empty edit is rejected; the reason shows in the status line.
        try await tmux.keys("a", "e", "C-u", "Enter")
        try await eventually("a shows the reject") { try await tmux.screen("a").contains("rejected: an item needs some text") }

        // q quits and gives the terminal back.
        try await tmux.keys("a", "q")
        await eventually("a's shell exits") { exitStatus(statusOfA) != nil }
        #expect(exitStatus(statusOfA) == "0")
        #expect(try await tmux.display("a", "#{alternate_on}") == "0")

        // SIGTERM also gives the terminal back.
        let pid = Int32(try await tmux.display("b", "#{pane_pid}")) ?? 0
        #expect(pid > 0)
        kill(pid, SIGTERM)
        try await eventually("b's shell exits") { try await tmux.display("b", "#{pane_dead}") == "1" }
        #expect(try await tmux.display("b", "#{alternate_on}") == "0")
    }

    @Test("resizing follows the terminal; a core gone for good restores the terminal and exits 3")
    func resizeAndLostCore() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        let core = try await sandbox.startCore()
        for number in 1 ... 12 {
            #expect(try await sandbox.client("send", "add", "item with a fairly long text number \(number)").status == 0)
        }
        let statusOfC = sandbox.directory + "/c.status"
        try await tmux.session("c", attachReportingStatus(sandbox, to: statusOfC, "--timeout 1"))
        try await eventually("c shows the list") { try await tmux.screen("c").contains("12 items") }

        try await tmux.run("resize-window", "-t", "c", "-x", "30", "-y", "8")
        try await eventually("c redraws for 30x8") {
            let lines = try await tmux.screen("c").split(separator: "\n", omittingEmptySubsequences: false)
            return lines.first?.hasPrefix(" CAMA to-do") == true && lines.contains { $0.hasSuffix("…") } && lines.count <= 9
        }
        // The selection moves past the bottom: the list scrolls to keep it visible.
        for _ in 0 ..< 8 { try await tmux.keys("c", "Down") }
        try await eventually("the list scrolls to item 9") { try await tmux.screen("c").contains("> 9 [ ]") }

        core.process.send(SIGKILL)
        await eventually("c gives up on the core") { exitStatus(statusOfC) != nil }
        #expect(exitStatus(statusOfC) == "3")
        #expect(try await tmux.display("c", "#{alternate_on}") == "0")
        let screen = try await tmux.screen("c").replacingNewlines()
        #expect(screen.contains("check that the core is running"), "\(screen)")
    }

    @Test("cama-launch opens the full-screen shell; a killed core shows reconnecting until the launcher restarts it; q stops both")
    func launcherShell() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        let statusFile = sandbox.directory + "/launch.status"
        try await tmux.session("l", "\(Binary.camaLaunch.path) --socket \(sandbox.socket) --state-dir \(sandbox.stateDirectory); echo $? > \(statusFile)")
        var killed: [Int32] = []
        defer { for pid in killed { kill(pid, SIGKILL) } }
        try await eventually("the launcher's shell shows the empty list") { try await tmux.screen("l").contains("no items") }
        #expect(try await tmux.display("l", "#{alternate_on}") == "1")
        try await tmux.keys("l", "a")
        try await tmux.type("l", "before the crash")
        try await tmux.keys("l", "Enter")
        try await eventually("the item shows") { try await tmux.screen("l").contains("1 [ ] before the crash") }

        try await tmux.startLogging("l")
        guard let core = await corePid(sandbox.socket) else {
            Issue.record("no core answers on \(sandbox.socket)")
            return
        }
        kill(core, SIGKILL)
        killed.append(core)
        await eventually("the launcher restarts the core") { await corePid(sandbox.socket).map { $0 != core } ?? false }
        try await eventually("the shell is back") { try await tmux.screen("l").contains(" reconnected") }
        await eventually("the shell said it was reconnecting while the core was down") {
            tmux.log("l").contains("the connection to the core was lost; reconnecting…")
        }
        #expect(try await tmux.screen("l").contains("1 [ ] before the crash"))
        try await tmux.keys("l", "x")
        try await eventually("a toggle after the restart shows") { try await tmux.screen("l").contains("1 [x] before the crash") }

        let restarted = await corePid(sandbox.socket)
        try await tmux.keys("l", "q")
        await eventually("the launcher exits") { exitStatus(statusFile) != nil }
        #expect(exitStatus(statusFile) == "0")
        #expect(try await tmux.display("l", "#{alternate_on}") == "0")
        #expect(await corePid(sandbox.socket) == nil, "quitting the shell stops the core it started")
        if let restarted { killed.append(restarted) }
    }

    @Test("when cama-launch gives up on its core, it ends its shell, gives the terminal back and says why")
    func launcherGivesUp() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        let statusFile = sandbox.directory + "/launch.status"
        let errors = sandbox.directory + "/launch.err"
        try await tmux.session("g", "\(Binary.camaLaunch.path) --socket \(sandbox.socket) --state-dir \(sandbox.stateDirectory) --max-restarts 1 --restart-window 20 2> \(errors); echo $? > \(statusFile)")
        try await eventually("the shell shows the list") { try await tmux.screen("g").contains("no items") }
        #expect(try await sandbox.client("send", "add", "soon damaged").status == 0)
        // Every restart now refuses the journal: a crash loop.
        guard let core = await corePid(sandbox.socket), try sandbox.damageFirstJournalRecord() else {
            Issue.record("no core or journal")
            return
        }
        kill(core, SIGKILL)
        await eventually("the launcher exits", timeout: .seconds(15)) { exitStatus(statusFile) != nil }
        #expect(exitStatus(statusFile) == "1")
        #expect(try await tmux.display("g", "#{alternate_on}") == "0")
        let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(error.contains("cama-launch: giving up: core-daemon failed 2 times in"), "\(error)")
    }
}

extension String {
    /// The text with line breaks removed (a narrow pane wraps long lines).
    func replacingNewlines() -> String {
        String(filter { $0 != "\n" })
    }
}
