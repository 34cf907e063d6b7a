import ActorNode
import FoundationEssentials
import Glibc
import Testing
import Wire

/// Whether this test process may run the core as another user (root ignores a directory's
/// permissions, so a read-only state directory needs a core that is not root).
private let canRunAsAnotherUser = getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

/// The user the core and its clients run as.
private let coreUser: uid_t = 65534

/// A state directory that stops taking new files (its permissions changed under a running core,
/// as a full inode table or a quota would do) does not stop the core while its journal segment
/// takes writes: it says so once, goes on in that segment, and starts a new one once it can.
/// Before, the first rotation that could not create its file stopped the core with status 70.
@Suite("A state directory that takes no new files")
struct ReadOnlyStateDirectoryTests {
    @Test("chmod 500 under a running core: every action acknowledged, one log line, a new segment once writable again, nothing lost", .enabled(if: canRunAsAnotherUser, "needs root and setpriv to run the core as another user"), .timeLimit(.minutes(1)))
    func keepsServing() async throws {
        let sandbox = try Sandbox()
        var template = Array("/tmp/cama-readonly-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemError("mkdtemp") }
        let home = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(chown(home, coreUser, coreUser) == 0)
        let socket = home + "/core.sock"
        let state = home + "/state"
        let environment = ["CAMA_STATE_DIR": state]
        func asCoreUser(_ binary: Binary, _ arguments: [String], input: String? = nil) throws -> Started {
            try sandbox.start(
                executable: "/usr/bin/setpriv", name: binary.rawValue,
                ["--reuid=\(coreUser)", "--regid=\(coreUser)", "--clear-groups", binary.path] + arguments,
                input: input, environment: environment)
        }
        func send(_ count: Int, from first: Int) async throws {
            let lines = (first ..< first + count).map { "add item \($0) with some text to fill the journal" }.joined(separator: "\n") + "\n"
            let sender = try asCoreUser(.shellClient, ["send", "-", "--socket", socket], input: lines)
            let ended = await sender.process.waitForExit(timeout: .seconds(30))
            #expect(ended == .exited(0), "\(sender.errorOutput)")
        }

        // A snapshot every 4 KiB of journal: rotations come often.
        var core = try asCoreUser(.coreDaemon, ["--socket", socket, "--snapshot-every", "4096"])
        await eventually("the core serves") { core.errorOutput.contains(" serving ") }
        try await send(50, from: 1)
        #expect(chmod(state, 0o500) == 0)
        try await send(200, from: 51)
        #expect(core.process.termination == nil, "\(core.errorOutput)")
        let said = core.errorOutput.components(separatedBy: "cannot start a new journal segment").count - 1
        #expect(said == 1, "\(core.errorOutput)")
        #expect(core.errorOutput.contains("Permission denied); going on in journal-"), "\(core.errorOutput)")

        #expect(chmod(state, 0o700) == 0)
        // The next rotation is tried within a second of the last attempt.
        try await Task.sleep(for: .milliseconds(1200))
        try await send(50, from: 251)
        await eventually("the journal starts a new segment again") { core.errorOutput.contains("started a new journal segment again") }

        core.process.send(SIGTERM)
        #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(0), "\(core.errorOutput)")
        core = try asCoreUser(.coreDaemon, ["--socket", socket])
        await eventually("the core serves again") { core.errorOutput.contains(" serving ") }
        #expect(core.errorOutput.contains("serving \(socket) at revision 300 "), "\(core.errorOutput)")
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit(timeout: .seconds(10))
    }
}
