import ActorNode
import Glibc
import Testing
import Wire

/// A core whose journal cannot be written stops rather than acknowledge what it could not
/// record: exit status 70, a log line saying why, no socket file left for others to trust, and
/// a directory that recovers to exactly what was acknowledged.
@Suite("Journal write failure")
struct JournalFailureTests {
    @Test("a journal that hits the file size limit: exit 70, socket and lock removed, every ack kept and nothing else")
    func fileSizeLimit() async throws {
        let sandbox = try Sandbox()
        // The kernel refuses writes past RLIMIT_FSIZE (EFBIG, with SIGXFSZ ignored), as a full
        // disk would. 8 blocks is 4 KiB under dash: a few dozen journal records; the core's
        // log, which the limit also applies to, stays well under it.
        let script = "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\""
        let core = try sandbox.start(executable: "/bin/sh", name: "limited-core", ["-c", script, Binary.coreDaemon.path, "--socket", sandbox.socket])
        await eventually("core-daemon serves \(sandbox.socket)") { UnixSocket.isServing(sandbox.socket) || core.process.termination != nil }
        #expect(UnixSocket.isServing(sandbox.socket), "\(core.errorOutput)")

        var acknowledged: [String] = []
        var failed: Finished?
        // Each send waits for its ack; the one whose record could not be written gets none, and
        // fails once its --timeout (long enough that load alone never trips it) has passed.
        for number in 1 ... 400 {
            let text = "item \(number)"
            let send = try await sandbox.run(.shellClient, ["send", "add", text, "--socket", sandbox.socket, "--timeout", "5"])
            guard send.status == 0 else {
                failed = send
                break
            }
            acknowledged.append(text)
        }
        let refused = try #require(failed, "the journal never hit the limit; \(acknowledged.count) actions were acknowledged")
        #expect(refused.status == 3, "\(refused)")
        #expect(refused.error.hasPrefix("shell-client: ") && (refused.error.hasSuffix("see 'cama-launch status'\n") || refused.error.hasSuffix("('cama-launch status')\n")), "one line saying what to check: \(refused.error)")
        #expect(refused.error.filter { $0 == "\n" }.count == 1, "\(refused.error)")
        #expect(!acknowledged.isEmpty)

        #expect(await core.process.waitForExit(timeout: .seconds(10)) == .exited(JournalFailure.exitStatus))
        #expect(core.errorOutput.contains("the journal cannot be written ("), "\(core.errorOutput)")
        #expect(core.errorOutput.contains("; stopping so that nothing unrecorded is acknowledged"), "\(core.errorOutput)")
        #expect(!fileExists(sandbox.socket), "a core that stopped left its socket file")
        #expect(!fileExists(sandbox.stateDirectory + "/core.lock"))

        // Without the limit, the next core recovers every acknowledged action and nothing else.
        let restarted = try await sandbox.startCore()
        #expect(UnixSocket.isServing(sandbox.socket), "\(restarted.errorOutput)")
        let state = try WireJSON.decode(JSONValue.self, from: Array(try await sandbox.client("state", "--json").output.utf8))
        guard case let .array(items)? = state["todo", "items"] else {
            Issue.record("no items in \(state)")
            return
        }
        #expect(items.compactMap { $0["text"]?.stringValue } == acknowledged)
        #expect(state["revision"]?.intValue == Int64(acknowledged.count))
    }
}
