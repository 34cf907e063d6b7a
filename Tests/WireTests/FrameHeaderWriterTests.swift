import Testing
import Wire

/// The one writer of a frame's length prefix (``Frame/beginFrame(in:)`` and
/// ``Frame/endFrame(in:startingAt:)``): a 4-byte big-endian length of what follows it, however
/// the payload is written and wherever the frame starts in its buffer; the frame decoder reads
/// what it writes back.
@Suite("Frame header writer")
struct FrameHeaderWriterTests {
    private static let lengths = [0, 1, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x01_02_03, 3 << 20]

    @Test("the prefix is the payload's length, big-endian, and the same as Frame.encode writes")
    func prefix() throws {
        for length in Self.lengths {
            let payload = [UInt8](repeating: 0x5A, count: length)
            var frame: [UInt8] = []
            let start = Frame.beginFrame(in: &frame)
            frame += payload
            Frame.endFrame(in: &frame, startingAt: start)
            let expected = [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
            #expect(Array(frame.prefix(4)) == expected, "\(length)")
            #expect(frame.count == Frame.headerLength + length)
            #expect(frame == (try Frame.encode(payload)))
        }
    }

    @Test("several frames written one after another in one buffer read back as they were")
    func severalInOneBuffer() throws {
        let payloads = Self.lengths.enumerated().map { index, length in [UInt8](repeating: UInt8(index), count: length) }
        var bytes: [UInt8] = []
        for payload in payloads {
            let start = Frame.beginFrame(in: &bytes)
            #expect(start == bytes.count - Frame.headerLength)
            bytes += payload
            Frame.endFrame(in: &bytes, startingAt: start)
        }
        var decoder = FrameDecoder()
        decoder.append(bytes)
        for payload in payloads {
            #expect(try decoder.nextFrame() == payload)
        }
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 0)
    }
}
