import Glibc
import Testing
@testable import ActorNode
@testable import Wire

@Suite("Socket connection")
struct SocketConnectionTests {
    /// Two connected non-blocking stream sockets: one wrapped, one raw for the test to drive.
    private func pair(limits: SocketConnection.Limits = .init()) throws -> (SocketConnection, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SystemError("socketpair") }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (SocketConnection(fd: fds[0], limits: limits), fds[1])
    }

    private func rawWrite(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    @Test("frames written in pieces arrive whole")
    func piecewise() async throws {
        let (connection, peer) = try pair()
        defer { close(peer); connection.close() }
        let bytes = try Frame.encode(Array("hello".utf8)) + Frame.encode(Array("world".utf8))
        rawWrite(peer, Array(bytes[0 ..< 3]))
        let first = Task { try await connection.readFrame() }
        try await Task.sleep(for: .milliseconds(20))
        rawWrite(peer, Array(bytes[3...]))
        #expect(try await first.value == Array("hello".utf8))
        #expect(try await connection.readFrame() == Array("world".utf8))
    }

    @Test("a clean EOF between frames ends reading with nil")
    func cleanEnd() async throws {
        let (connection, peer) = try pair()
        defer { connection.close() }
        rawWrite(peer, try Frame.encode(Array("last".utf8)))
        close(peer)
        #expect(try await connection.readFrame() == Array("last".utf8))
        #expect(try await connection.readFrame() == nil)
    }

    @Test("EOF inside a frame is reported as a truncated frame")
    func truncated() async throws {
        let (connection, peer) = try pair()
        defer { connection.close() }
        rawWrite(peer, [0, 0, 0, 10, 1, 2])
        close(peer)
        await #expect(throws: ConnectionError.frame(.truncated(received: 6, expected: 14))) {
            try await connection.readFrame()
        }
    }

    @Test("an oversize frame is refused as soon as its prefix arrives")
    func oversize() async throws {
        var limits = SocketConnection.Limits()
        limits.maximumPayloadLength = 100
        let (connection, peer) = try pair(limits: limits)
        defer { close(peer); connection.close() }
        rawWrite(peer, [0, 0, 1, 0])
        await #expect(throws: ConnectionError.frame(.payloadTooLarge(length: 256, limit: 100))) {
            try await connection.readFrame()
        }
    }

    @Test("writes beyond what the socket buffers wait for the reader, and all bytes arrive in order")
    func backpressure() async throws {
        var limits = SocketConnection.Limits()
        limits.outboundHighWater = 64 << 10
        limits.outboundLowWater = 16 << 10
        let (connection, peer) = try pair(limits: limits)
        defer { close(peer); connection.close() }
        let frames = 200
        let payload = [UInt8](repeating: 0xAB, count: 8 << 10)
        let writer = Task {
            for index in 0 ..< frames {
                var body = payload
                body[0] = UInt8(index % 256)
                try await connection.write(Frame.encode(body))
            }
        }
        // Read everything on a thread of our own (a blocking read), checking each frame.
        let expectedBytes = frames * (4 + payload.count)
        let received = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            SystemThread.detach(name: "test-reader") {
                var all: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while all.count < expectedBytes {
                    let count = buffer.withUnsafeMutableBytes { read(peer, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    all += buffer[0 ..< count]
                }
                continuation.resume(returning: all)
            }
        }
        try await writer.value
        #expect(received.count == expectedBytes)
        var decoder = FrameDecoder()
        decoder.append(received)
        for index in 0 ..< frames {
            #expect(try decoder.nextFrame()?.first == UInt8(index % 256))
        }
    }

    @Test("writing to a peer that has gone fails instead of raising SIGPIPE")
    func writeToClosedPeer() async throws {
        let (connection, peer) = try pair()
        defer { connection.close() }
        close(peer)
        await #expect(throws: ConnectionError.self) {
            for _ in 0 ..< 100 {
                try await connection.write(Frame.encode([UInt8](repeating: 1, count: 4096)))
            }
        }
    }
}
