import Testing
@testable import ActorNode

@Suite("A core's options, declared once")
struct HostOptionsTests {
    @Test("every option of the table parses, with the values it was given")
    func parsesEveryOption() throws {
        let options = try HostOptions.parse([
            "--socket", "/tmp/c.sock", "--state-dir=/tmp/state", "--fsync", "batch", "--snapshot-every", "2048",
            "--max-frame", "4096", "--max-buffered", "1048576", "--handshake-timeout", "2.5", "--trace",
        ], program: "core-daemon")
        var expected = HostOptions()
        expected.socket = "/tmp/c.sock"
        expected.stateDirectory = "/tmp/state"
        expected.fsync = .batch
        expected.snapshotThreshold = 2048
        expected.maximumFrameLength = 4096
        expected.inputBudget = 1 << 20
        expected.handshakeTimeout = .milliseconds(2500)
        expected.trace = true
        #expect(options == expected)
        #expect(try HostOptions.parse(["--repair", "--state-dir", "/s"], program: "core-daemon").mode == .repair)
        #expect(try HostOptions.parse(["--check"], program: "core-daemon").mode == .check)
        #expect(try HostOptions.parse(["--version", "--no-such-option"], program: "core-daemon").mode == .version)
        #expect(try HostOptions.parse(["--help"], program: "core-daemon").mode == .help)
    }

    @Test("mistakes read as they always did", arguments: [
        (["--fsync", "sometimes"], "--fsync takes always, batch or never, not 'sometimes'"),
        (["--check", "--print-paths"], "choose one of --check, --repair, --at and --print-paths"),
        (["--max-frame", "12"], "--max-frame needs a whole number from 1024 to 4294967295, not '12'"),
        (["--handshake-timeout", "0"], "--handshake-timeout needs a number of seconds from 0.1 to 3600.0, not '0'"),
        (["--socket"], "--socket needs a value"),
        (["--no-such-option"], "unknown option '--no-such-option'"),
        (["serve"], "unexpected argument 'serve'"),
    ])
    func mistakes(arguments: [String], message: String) {
        #expect {
            try HostOptions.parse(arguments, program: "core-daemon")
        } throws: { error in
            (error as? CommandFailure)?.message == "\(message); see 'core-daemon --help'"
        }
    }

    @Test("the help lists every option of the table once, and wraps the paths of a long app name")
    func help() {
        let naming = AppNaming("a-rather-long-app-name")
        let help = HostOptions.help(program: "long-core", summary: "a core.", naming: naming)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for option in HostOptions.table {
            #expect(lines.filter { $0.hasPrefix("  \(option.label) ") || $0 == "  \(option.label)" }.count == 1, "\(option.label)")
        }
        let withName = lines.filter { $0.contains(naming.name) }
        #expect(withName.count >= 4)
        for line in withName {
            #expect(line.count <= Wording.helpWidth, "\(line)")
        }
        // The search orders are whole, across the lines they were wrapped on.
        let text = lines.map { $0.trimmingSpaces() }.joined(separator: " ")
        #expect(text.contains(naming.socketSearch))
        #expect(text.contains(naming.stateDirectorySearch))
    }

    @Test("wrapping breaks between words (or groups of words), never inside one")
    func wrapping() {
        #expect(Wording.wrap("aa bb cc dd", width: 5) == ["aa bb", "cc dd"])
        #expect(Wording.wrap("aa bb cc", width: 4) == ["aa", "bb", "cc"])
        #expect(Wording.wrap("a-very-long-word b", width: 4) == ["a-very-long-word", "b"])
        #expect(Wording.wrap(["[--a X]", "[--b Y]"], width: 10) == ["[--a X]", "[--b Y]"])
        #expect(Wording.wrap("", width: 10) == [""])
        #expect(Wording.list(["always", "batch", "never"], "or") == "always, batch or never")
        #expect(Wording.list(["a", "b"], "and") == "a and b")
        #expect(Wording.list(["a"], "and") == "a")
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
