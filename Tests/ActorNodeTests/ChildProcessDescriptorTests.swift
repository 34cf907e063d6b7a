import Glibc
import Testing
@testable import ActorNode

/// A child started with `ChildProcess.spawn` gets its standard descriptors and the ones passed
/// to it, and nothing else this process holds: a descriptor made without close-on-exec (a
/// test's socketpair, a library's) used to leak into every child, counting against its limit
/// (a core under `ulimit -n 64` started with ten of the test runner's sockets).
@Suite("Descriptors a child gets")
struct ChildProcessDescriptorTests {
    /// Runs `script` with `/bin/sh` and returns what it printed.
    private func run(_ script: String, passing descriptors: [(source: Int32, target: Int32)] = []) async throws -> String {
        var output: [Int32] = [0, 0]
        #expect(pipe(&output) == 0)
        for fd in output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["-c", script], standardOutput: output[1], passing: descriptors)
        close(output[1])
        #expect(await child.waitForExit(timeout: .seconds(20)) == .exited(0))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0 ..< count]
        }
        close(output[0])
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a descriptor held without close-on-exec does not reach the child; a passed one does", .timeLimit(.minutes(1)))
    func onlyWhatIsPassed() async throws {
        var pair: [Int32] = [0, 0]
        // Made the way code that does not know about children makes them: no close-on-exec.
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let leaked = pair[0]
        let printed = try await run(
            "for fd in \(leaked) 3; do if [ -e /proc/$$/fd/$fd ]; then echo \"$fd open\"; else echo \"$fd closed\"; fi; done",
            passing: [(source: pair[1], target: 3)])
        let expected = leaked == 3 ? "3 open\n3 open\n" : "\(leaked) closed\n3 open\n"
        #expect(printed == expected, "\(printed)")
    }
}
