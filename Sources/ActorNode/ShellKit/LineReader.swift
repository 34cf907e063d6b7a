import Dispatch
import Glibc
import Synchronization

/// Reads lines from a file descriptor (stdin) on a thread of its own, since a read from a
/// terminal or pipe blocks, and hands them over one at a time: the reader waits until each line
/// is taken, so a huge input never piles up in memory.
enum LineReader {
    static func lines(from fd: Int32 = 0) -> Chan<String> {
        let lines = Chan<String>(capacity: 1)
        SystemThread.detach(name: "cama-stdin") {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            func deliver(_ bytes: ArraySlice<UInt8>) -> Bool {
                var line = String(decoding: bytes, as: UTF8.self)
                if line.hasSuffix("\r") { line.removeLast() }
                return handOver(line, to: lines)
            }
            reading: while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0 ..< count])
                var start = 0
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    guard deliver(pending[start ..< newline]) else { break reading }
                    start = newline + 1
                }
                pending.removeSubrange(0 ..< start)
            }
            if !pending.isEmpty { _ = deliver(pending[...]) }
            lines.close()
        }
        return lines
    }

    /// Gives `line` to whoever reads `lines`, blocking the calling thread (a reader's own) until
    /// it is taken; false when the channel is closed.
    /// - Parameters:
    ///   - line: a line read.
    ///   - lines: the channel of lines.
    static func handOver(_ line: String, to lines: Chan<String>) -> Bool {
        let handedOver = DispatchSemaphore(value: 0)
        let accepted = AcceptFlag()
        Task {
            accepted.set(await lines.send(line))
            handedOver.signal()
        }
        handedOver.wait()
        return accepted.value
    }
}

/// A Bool set by one thread and read by another after a semaphore handoff.
private final class AcceptFlag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set(_ value: Bool) { storage.store(value, ordering: .releasing) }
    var value: Bool { storage.load(ordering: .acquiring) }
}
