import ActorNode
import Foundation
import Glibc
import Testing

/// Whatever a core needs descriptors for (its event loop, the launcher's lifeline), it takes
/// before it serves: once it serves, a flood of connections may take every descriptor left. A
/// second event loop made on demand after that used to crash a core under `ulimit -n`
/// ("eventfd: Too many open files"), all the sooner as it started with descriptors its parent
/// held without close-on-exec.
@Suite("The core's descriptors")
struct CoreEventLoopTests {
    /// The core's descriptors: number and what each points at.
    private func descriptors(of pid: pid_t) -> [(number: Int, target: String)] {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard let number = Int(name), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name) else { return nil }
            return (number, target)
        }
    }

    @Test("a serving core holds two epoll instances: Swift's dispatch runtime's and its own loop's, no loop made on demand", .timeLimit(.minutes(1)))
    func oneLoopOfItsOwn() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        // Served: an action went through, with its journal record and ack.
        #expect(try await sandbox.client("send", "add", "x").status == 0)
        let held = descriptors(of: core.pid)
        // (A third, the process's shared loop, used to be made after the core began to serve,
        // when the launcher's lifeline was looked for, even with no launcher.)
        #expect(held.filter { $0.target == "anon_inode:[eventpoll]" }.count == 2, "\(held.sorted { $0.number < $1.number })")
    }

    @Test("a core started by a process that holds descriptors without close-on-exec gets none of them", .timeLimit(.minutes(1)))
    func nothingInherited() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let inherited = descriptors(of: core.pid).filter { $0.number == Int(pair[0]) || $0.number == Int(pair[1]) }
        // Numbers the core may have reused for its own files: none of them is our socketpair.
        let ours = Set(["socket:[\(inode(of: pair[0]))]", "socket:[\(inode(of: pair[1]))]"])
        #expect(inherited.allSatisfy { !ours.contains($0.target) }, "\(inherited)")
    }

    private func inode(of fd: Int32) -> UInt64 {
        var status = stat()
        return fstat(fd, &status) == 0 ? UInt64(status.st_ino) : 0
    }
}
