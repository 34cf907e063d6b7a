import Glibc
import Testing
@testable import ActorNode
import Wire

/// A client's output buffer writes what is queued in order, however the socket takes it, and
/// counts the answers and the bytes after the last whole state that are not written yet.
@Suite("Output buffer")
struct OutputBufferTests {
    @Test("random frames, acks and partial writes: the peer reads every byte in order, and the counts agree with a model")
    func agreesWithAModel() throws {
        var descriptors: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        defer { close(descriptors[0]); close(descriptors[1]) }
        let (writer, reader) = (descriptors[0], descriptors[1])
        var small: Int32 = 4096
        setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)

        var random = SystemRandomNumberGenerator()
        var buffer = OutputBuffer()
        var expected: [UInt8] = []
        var received: [UInt8] = []
        var answerEnds: [Int] = []
        var stateEnd = 0
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        func drain(atMost limit: Int) {
            let count = scratch.withUnsafeMutableBytes { recv(reader, $0.baseAddress, Swift.min(limit, $0.count), 0) }
            if count > 0 { received += scratch[..<count] }
        }
        for step in 0 ..< 4000 {
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 4:
                // Each frame its own byte, so that a byte out of order shows.
                let frame = [UInt8](repeating: UInt8(truncatingIfNeeded: step), count: Int.random(in: 1 ... 3000, using: &random))
                let isAnswer = Bool.random(using: &random)
                let isWholeState = !isAnswer && Int.random(in: 0 ..< 8, using: &random) == 0
                buffer.append(frame, isAnswer: isAnswer, isWholeState: isWholeState)
                expected += frame
                if isAnswer { answerEnds.append(expected.count) }
                if isWholeState { stateEnd = expected.count }
            case 4:
                let seq = UInt64(step)
                buffer.appendAck(seq: seq, revision: seq + 1)
                expected += ScriptFrames.ackFrame(seq: seq, revision: seq + 1)
                answerEnds.append(expected.count)
            case 5 ..< 8:
                let flushed = buffer.flush(to: writer)
                #expect(flushed)
            default:
                drain(atMost: Int.random(in: 1 ... 20000, using: &random))
            }
            let written = expected.count - buffer.unsent
            #expect(written >= received.count)
            #expect(buffer.answers == answerEnds.filter { $0 > written }.count)
            #expect(buffer.unsentAfterState == expected.count - Swift.max(written, stateEnd))
            #expect(buffer.isEmpty == (written == expected.count))
        }
        while !buffer.isEmpty || received.count < expected.count {
            let flushed = buffer.flush(to: writer)
            #expect(flushed)
            drain(atMost: scratch.count)
        }
        #expect(received == expected)
        #expect(buffer.answers == 0)
    }
}
