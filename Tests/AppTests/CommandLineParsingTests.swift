import Testing
@testable import ActorNode
@testable import CoreDaemon
@testable import ShellClient

@Suite("Command lines")
struct CommandLineParsingTests {
    private func parse(_ arguments: [String]) throws(CommandFailure) -> (ShellOptions, ShellCommand) {
        try ShellCommand.parse(arguments, program: "shell-client", verbSummary: "add TEXT")
    }

    @Test("shell-client commands", arguments: [
        ([], ShellCommand.attach),
        (["attach"], .attach),
        (["send", "add", "buy milk"], .send(.verb(["add", "buy milk"]))),
        (["send", "add", "--not-an-option"], .send(.verb(["add", "--not-an-option"]))),
        (["send", "--json", #"{"clear":{}}"#], .send(.json(#"{"clear":{}}"#))),
        (["send", "--json={\"clear\":{}}"], .send(.json(#"{"clear":{}}"#))),
        (["send", "-"], .send(.standardInput)),
        (["state"], .state(json: false)),
        (["state", "--json"], .state(json: true)),
        (["watch", "--json", "--count", "3"], .watch(format: .json, count: 3)),
        (["watch", "--patches"], .watch(format: .patches, count: nil)),
        (["watch"], .watch(format: .text, count: nil)),
        (["--help"], .help),
        (["send", "-h"], .help),
        (["help"], .help),
        (["--version"], .version),
    ])
    func commands(arguments: [String], expected: ShellCommand) throws {
        #expect(try parse(arguments).1 == expected)
    }

    @Test("global options go before or after the command")
    func globalOptions() throws {
        let (before, _) = try parse(["--socket", "/tmp/a.sock", "--timeout", "2.5", "state"])
        #expect(before.socket == "/tmp/a.sock")
        #expect(before.timeout == .milliseconds(2500))
        let (after, command) = try parse(["send", "--socket=/tmp/b.sock", "toggle", "3"])
        #expect(after.socket == "/tmp/b.sock")
        #expect(command == .send(.verb(["toggle", "3"])))
        let (trailing, words) = try parse(["send", "add", "-5", "degrees", "--socket", "/tmp/c.sock", "--timeout=3"])
        #expect(trailing.socket == "/tmp/c.sock")
        #expect(trailing.timeout == .seconds(3))
        #expect(words == .send(.verb(["add", "-5", "degrees"])))
        let (_, literal) = try parse(["send", "add", "--", "--socket", "is", "a", "word"])
        #expect(literal == .send(.verb(["add", "--socket", "is", "a", "word"])))
    }

    @Test("mistakes are usage errors that point at --help", arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["--frob"], "unknown option '--frob'"),
        (["send"], "send needs an action"),
        (["send", "--json"], "--json needs a value"),
        (["send", "--json", "{}", "extra"], "send --json takes one action"),
        (["send", "-", "more"], "send - reads actions from stdin"),
        (["watch", "--count", "0"], "--count needs a whole number from 1"),
        (["watch", "--count", "many"], "--count needs a whole number"),
        (["state", "extra"], "unexpected argument 'extra'"),
        (["--timeout", "-1", "state"], "--timeout needs a number of seconds"),
        (["--json", "state"], "--json belongs after a command"),
        (["watch", "--json", "--patches"], "watch takes --json or --patches, not both"),
        (["state", "--patches"], "unknown option '--patches'"),
    ])
    func mistakes(arguments: [String], message: String) {
        do {
            _ = try parse(arguments)
            Issue.record("parsed \(arguments)")
        } catch {
            #expect(error.status == .usage)
            #expect(error.message.hasPrefix(message), "\(error.message)")
            #expect(error.message.hasSuffix("--help'"), "\(error.message)")
        }
    }

    @Test("a core's options")
    func hostOptions() throws {
        let options = try HostOptions.parse(["--socket", "/tmp/c.sock", "--max-frame", "4096"], program: "core-daemon")
        #expect(options.socket == "/tmp/c.sock")
        #expect(options.maximumFrameLength == 4096)
        #expect(options.mode == .serve)
        #expect(throws: CommandFailure.self) { try HostOptions.parse(["--max-frame", "12"], program: "core-daemon") }
        #expect(throws: CommandFailure.self) { try HostOptions.parse(["serve"], program: "core-daemon") }
        #expect(throws: CommandFailure.self) { try HostOptions.parse(["--check", "--repair"], program: "core-daemon") }
        #expect(try HostOptions.parse(["-h"], program: "core-daemon").mode == .help)
        #expect(try HostOptions.parse(["--print-paths"], program: "core-daemon").mode == .printPaths)
    }
}

@Suite("Command lines: --ssh")
struct RemoteCommandLineTests {
    private func parse(_ arguments: [String]) throws(CommandFailure) -> (ShellOptions, ShellCommand) {
        try ShellCommand.parse(arguments, program: "shell-client", verbSummary: "add TEXT")
    }

    @Test("--ssh and --remote-command go with every command but bridge; --read-only only with bridge")
    func accepted() throws {
        let (options, command) = try parse(["send", "add", "x", "--ssh", "me@server", "--remote-command", "/opt/cama/bin/shell-client"])
        #expect(command == .send(.verb(["add", "x"])))
        #expect(options.ssh == "me@server" && options.remoteCommand == "/opt/cama/bin/shell-client")
        #expect(try parse(["--ssh", "server", "attach"]).0.ssh == "server")
        let (bridge, _) = try parse(["bridge", "--read-only"])
        #expect(bridge.readOnly)
    }

    @Test("each misuse is a usage error that says what goes with what", arguments: [
        (["bridge", "--ssh", "server"], "unknown option '--ssh'"),
        (["--ssh", "server", "bridge"], "bridge is the far end of --ssh"),
        (["state", "--read-only"], "--read-only belongs to bridge"),
        (["state", "--remote-command", "x"], "--remote-command goes with --ssh HOST"),
        (["state", "--ssh", "-oProxyCommand=x"], "--ssh takes a host, not '-oProxyCommand=x'"),
    ])
    func refused(arguments: [String], message: String) {
        #expect(throws: CommandFailure.self) { try parse(arguments) }
        do {
            _ = try parse(arguments)
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
        }
    }
}
