import ActorNode
import Dispatch
import Glibc
import Synchronization

/// Reads raw bytes from the terminal on a thread of its own (a read from a terminal blocks) and
/// hands each chunk over, waiting until it is taken.
enum TerminalInput {
    static func chunks(from fd: Int32 = 0) -> Chan<[UInt8]> {
        let chunks = Chan<[UInt8]>(capacity: 8)
        SystemThread.detach(name: "cama-keys") {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = Array(buffer[0 ..< count])
                let handedOver = DispatchSemaphore(value: 0)
                Task {
                    await chunks.send(chunk)
                    handedOver.signal()
                }
                handedOver.wait()
                if chunks.isClosed { break }
            }
            chunks.close()
        }
        return chunks
    }
}
