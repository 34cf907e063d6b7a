import Testing

/// Every command answers --help and --version, refuses mistakes with status 2 and one line
/// on stderr, and says when no core answers (status 3).
@Suite("Command lines of the real binaries")
struct CommandLineTests {
    @Test("--help and --version", arguments: Binary.allCases)
    func helpAndVersion(binary: Binary) async throws {
        let sandbox = try Sandbox()
        let help = try await sandbox.run(binary, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("Usage"))
        #expect(help.output.contains("--socket"))
        let version = try await sandbox.run(binary, ["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("\(binary.rawValue) 0.1.0 (protocol 1)"))
    }

    @Test("an unknown option is a usage error: status 2, one line naming it", arguments: Binary.allCases)
    func unknownOption(binary: Binary) async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(binary, ["--frobnicate"])
        #expect(result.status == 2)
        #expect(result.error == "\(binary.rawValue): unknown option '--frobnicate'; see '\(binary.rawValue) --help'\n")
        #expect(result.output.isEmpty)
    }

    @Test("no core on the socket: status 3 and what to do", arguments: [
        ["state"], ["send", "add", "x"], ["watch"], ["attach"],
    ])
    func unreachable(arguments: [String]) async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(.shellClient, arguments + ["--socket", sandbox.socket])
        #expect(result.status == 3)
        #expect(result.error == "shell-client: no core is serving \(sandbox.socket) (no such socket); start a core with 'cama-launch --detach' (or 'swift run cama-launch')\n")
    }

    @Test("cama-launch status with no core: status 3")
    func statusUnreachable() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.run(.camaLaunch, ["status", "--socket", sandbox.socket])
        #expect(result.status == 3)
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(result.error.contains("start one with 'cama-launch --detach'"), "\(result.error)")
        // For another app, the advice names that app's core.
        let chat = try await sandbox.run(.camaLaunch, ["status", "--core", "chat-core", "--socket", sandbox.socket])
        #expect(chat.status == 3)
        #expect(chat.error.contains("start one with 'cama-launch --detach --core chat-core'"), "\(chat.error)")
    }
}
