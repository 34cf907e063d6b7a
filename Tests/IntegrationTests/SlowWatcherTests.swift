import ActorNode
import Glibc
import Testing
import Wire

/// A `watch --json` whose reader does not keep up never holds the core back, and skips to the
/// newest state: through the real binaries, its stdout a pipe nobody reads for a while.
@Suite("A slow watcher")
struct SlowWatcherTests {
    @Test("its stdout blocked, the core serves 3000 actions at full speed; then it prints the newest state, having skipped", .timeLimit(.minutes(1)))
    func skipsToTheNewest() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore(["--fsync", "never"])
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let watcher = try ChildProcess.spawn(
            Binary.shellClient.path, arguments: ["watch", "--json", "--socket", sandbox.socket],
            standardOutput: pipeEnds[1], standardError: devNull)
        close(pipeEnds[1])
        close(devNull)
        defer {
            watcher.send(SIGKILL)
            close(pipeEnds[0])
        }
        try await eventually("the watcher is attached") { try await attachedShells(sandbox.socket) == 1 }

        // Nobody reads the watcher's output: its pipe fills after a few hundred lines.
        let bench = try await sandbox.run(.camaBench, ["--socket", sandbox.socket, "--clients", "1", "--actions", "3000"], timeout: .seconds(30))
        #expect(bench.status == 0, "\(bench)")

        // Now read it all: the last line is the newest state, and many were never printed.
        let flags = fcntl(pipeEnds[0], F_GETFL)
        _ = fcntl(pipeEnds[0], F_SETFL, flags | O_NONBLOCK)
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, !String(decoding: text, as: UTF8.self).contains(#""revision":3000,"#) {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count > 0 { text += buffer[0 ..< count] } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        let revisions = try lines.map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8))["revision"]?.intValue ?? -1 }
        #expect(revisions.last == 3000, "the newest state is printed last: \(revisions.suffix(3))")
        let counters = try lines.map { try WireJSON.decode(JSONValue.self, from: Array($0.utf8))["counter", "value"]?.intValue ?? -1 }
        #expect(counters.last == 3000)
        #expect(revisions == revisions.sorted() && Set(revisions).count == revisions.count, "revisions only grow")
        #expect(revisions.count < 3001, "a watcher that cannot print every state skips some: \(revisions.count) lines")
    }
}
