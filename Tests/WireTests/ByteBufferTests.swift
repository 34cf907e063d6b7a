import Testing
@_spi(ByteWriting) @testable import Wire

/// The buffer a client's output and a journal's records wait in: whatever is appended, written
/// in place or let go of, it holds what an array would.
@Suite("Byte buffer")
struct ByteBufferTests {
    private func contents(_ buffer: borrowing ByteBuffer) -> [UInt8] {
        Array(buffer.unsafeBytes)
    }

    @Test("random appends, writes in place and removals agree with an array")
    func agreesWithAnArray() {
        var random = SystemRandomNumberGenerator()
        var buffer = ByteBuffer()
        var model: [UInt8] = []
        var next: UInt8 = 0
        func bytes(_ count: Int) -> [UInt8] {
            (0 ..< count).map { _ in next &+= 1; return next }
        }
        for _ in 0 ..< 4000 {
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 3:
                let piece = bytes(Int.random(in: 0 ..< 300, using: &random))
                buffer.append(piece)
                model += piece
            case 3 ..< 6:
                // Room for up to 600 bytes; some or all of it written.
                let room = Int.random(in: 0 ..< 600, using: &random)
                let piece = bytes(Int.random(in: 0 ... room, using: &random))
                buffer.appendWritten(atMost: room) { cursor in
                    for byte in piece { cursor.write(byte) }
                }
                model += piece
            case 6 ..< 8:
                let length = Int.random(in: 0 ... model.count, using: &random)
                buffer.removeFirst(length)
                model.removeFirst(length)
            case 8:
                let keep = Bool.random(using: &random)
                buffer.removeAll(keepingCapacity: keep)
                model.removeAll()
                if !keep { #expect(buffer.capacity == 0) }
            default:
                #expect(contents(buffer) == model)
            }
            #expect(buffer.count == model.count)
            #expect(buffer.isEmpty == model.isEmpty)
            #expect(buffer.capacity >= buffer.count)
        }
        #expect(contents(buffer) == model)
    }

    @Test("no room to write in, on a buffer that never held anything or let its memory go, writes nothing")
    func noRoomOnAnEmptyBuffer() {
        var buffer = ByteBuffer()
        buffer.appendWritten(atMost: 0) { _ in }
        #expect(buffer.isEmpty && buffer.capacity == 0)
        buffer.append(Array("abc".utf8))
        buffer.removeAll(keepingCapacity: false)
        buffer.appendWritten(atMost: 0) { _ in }
        #expect(buffer.isEmpty && buffer.capacity == 0)
        buffer.appendWritten(atMost: 2) { $0.write(UInt8(ascii: "z")) }
        #expect(contents(buffer) == Array("z".utf8))
    }

    @Test("an ack written in place is the ack frame")
    func ackInPlace() {
        var buffer = ByteBuffer()
        buffer.append(Array("x".utf8))
        ScriptFrames.appendAckFrame(seq: 12, revision: 3_456_789, to: &buffer)
        #expect(contents(buffer) == Array("x".utf8) + ScriptFrames.ackFrame(seq: 12, revision: 3_456_789))
    }
}
