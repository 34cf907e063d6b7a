import ActorNode
import Glibc
import Testing

/// A full screen whose app code traps still gives the terminal back: the crash handler the core
/// uses for its crash note (CSystemShims) leaves the alternate screen and restores the
/// terminal's settings before the signal goes on.
@Suite("A crashed full screen", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux); .ci/run installs it"))
struct CrashRestoresTerminalTests {
    @Test("a full screen that traps leaves the alternate screen and restores the terminal's settings", .timeLimit(.minutes(1)))
    func trapRestores() async throws {
        let sandbox = try Sandbox()
        let tmux = try #require(Tmux(sandbox))
        _ = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "an item").status == 0)
        let settings = sandbox.directory + "/stty.txt"
        let statusFile = sandbox.directory + "/trap.status"
        // The runtime's backtrace is not interactive here, so the shell ends at once.
        try await tmux.session("x", "SWIFT_BACKTRACE=interactive=no \(Binary.trapShell.path) attach --socket \(sandbox.socket) 2> \(sandbox.directory)/trap.err; echo $? > \(statusFile); stty -a > \(settings)")
        try await eventually("the full screen shows") { try await tmux.screen("x").contains("an item") }
        #expect(try await tmux.display("x", "#{alternate_on}") == "1")

        try await tmux.keys("x", "!")
        await eventually("the shell has crashed", timeout: .seconds(40)) { (try? String(contentsOfFile: statusFile, encoding: .utf8)) != nil }
        let status = Int((try? String(contentsOfFile: statusFile, encoding: .utf8))?.trimmingCharacters() ?? "") ?? 0
        #expect(status > 128, "killed by a signal: \(status)")
        #expect(try await tmux.display("x", "#{alternate_on}") == "0")
        await eventually("stty has run") { !((try? String(contentsOfFile: settings, encoding: .utf8)) ?? "").isEmpty }
        let restored = (try? String(contentsOfFile: settings, encoding: .utf8)) ?? ""
        for flag in ["echo", "icanon", "isig", "icrnl"] {
            #expect(restored.split(whereSeparator: \.isWhitespace).contains(Substring(flag)), "\(flag) is back: \(restored)")
        }
    }
}
