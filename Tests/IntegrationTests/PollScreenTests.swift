import ActorNode
import Glibc
import Testing

/// The poll's full screen on a real terminal (tmux): the kit gives it from a view and three
/// keys; a script's vote shows at once, and the winner shows when the poll closes.
@Suite("Poll in tmux", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct PollScreenTests {
    @Test("propose with p, vote with Enter, a script's vote shows at once, close with c then y, the winner marked; q gives the terminal back", .timeLimit(.minutes(1)))
    func proposeVoteClose() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        let core = try sandbox.start(.pollCore, ["--socket", sandbox.socket])
        defer { core.process.send(SIGTERM) }
        await eventually("poll-core serves") { UnixSocket.isServing(sandbox.socket) }
        let status = sandbox.directory + "/poll.status"
        try await tmux.session("poll", "\(Binary.pollShell.path) attach --socket \(sandbox.socket); echo $? > \(status)")
        try await eventually("the empty poll") { try await tmux.screen("poll").contains("(no options: press p to propose one)") }

        for option in ["pizza", "sushi"] {
            try await tmux.keys("poll", "p")
            try await eventually("the prompt") { try await tmux.screen("poll").contains(" propose:") }
            try await tmux.type("poll", option)
            try await tmux.keys("poll", "Enter")
            try await eventually("\(option) is proposed") { try await tmux.screen("poll").contains("\(option): 0 votes") }
        }
        // The selection is on the first option: Enter votes for it; a script votes for the second twice.
        try await tmux.keys("poll", "Enter")
        try await eventually("the vote shows") { try await tmux.screen("poll").contains("1 pizza: 1 vote") }
        for _ in 0 ..< 2 { #expect(try await sandbox.run(.pollShell, ["send", "vote", "2", "--socket", sandbox.socket]).status == 0) }
        try await eventually("the script's votes show at once") { try await tmux.screen("poll").contains("2 sushi: 2 votes") }

        try await tmux.keys("poll", "c")
        try await eventually("it asks first") { try await tmux.screen("poll").contains("close the poll now?") }
        try await tmux.keys("poll", "y")
        try await eventually("closed, with the winner") {
            let screen = try await tmux.screen("poll")
            return screen.contains(" poll · closed") && screen.contains("2 sushi: 2 votes (the winner)")
        }
        // What state prints is the same view, as text.
        let state = try await sandbox.run(.pollShell, ["state", "--socket", sandbox.socket])
        #expect(state.output == "revision 6\n poll · closed\n 1 pizza: 1 vote\n 2 sushi: 2 votes (the winner)\n", "\(state)")

        try await tmux.keys("poll", "q")
        await eventually("attach ends with status 0") { (try? String(contentsOfFile: status, encoding: .utf8)) == "0\n" }
        #expect(try await tmux.display("poll", "#{alternate_on}") == "0", "the terminal is given back")
    }
}
