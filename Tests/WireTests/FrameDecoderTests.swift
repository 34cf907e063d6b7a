import ActorNode
import Testing
@testable import Wire

@Suite("Framing")
struct FrameDecoderTests {
    private func frame(_ text: String) throws -> [UInt8] {
        try Frame.encode(Array(text.utf8))
    }

    @Test("a frame is a 4-byte big-endian length, then the payload")
    func encodesLengthPrefix() throws {
        let bytes = try Frame.encode(Array("hello".utf8))
        #expect(bytes == [0, 0, 0, 5] + Array("hello".utf8))
        #expect(try Frame.encode([UInt8](repeating: 7, count: 0x01_02_03)).prefix(4) == [0, 1, 2, 3])
    }

    @Test("bytes arriving one at a time make the same frames")
    func partialReads() throws {
        var decoder = FrameDecoder()
        let stream = try frame("first") + frame("second")
        var frames: [String] = []
        for byte in stream {
            decoder.append([byte])
            while let payload = try decoder.nextFrame() {
                frames.append(String(decoding: payload, as: UTF8.self))
            }
        }
        #expect(frames == ["first", "second"])
        #expect(decoder.bufferedByteCount == 0)
        try decoder.finish()
    }

    @Test("several frames in one read all come out, in order")
    func severalFramesInOneRead() throws {
        var decoder = FrameDecoder()
        decoder.append(try frame("a") + frame("") + frame("ccc") + Array(frame("dddd").prefix(6)))
        #expect(try decoder.nextFrame().map { String(decoding: $0, as: UTF8.self) } == "a")
        #expect(try decoder.nextFrame() == [])
        #expect(try decoder.nextFrame().map { String(decoding: $0, as: UTF8.self) } == "ccc")
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.hasPartialFrame)
        decoder.append(Array(try frame("dddd").dropFirst(6)))
        #expect(try decoder.nextFrame().map { String(decoding: $0, as: UTF8.self) } == "dddd")
    }

    @Test("EOF inside the payload is a truncated frame that says how much arrived")
    func endOfStreamInPayload() throws {
        var decoder = FrameDecoder()
        decoder.append(Array(try frame("0123456789").prefix(7)))
        #expect(try decoder.nextFrame() == nil)
        #expect(throws: FrameError.truncated(received: 7, expected: 14)) { try decoder.finish() }
    }

    @Test("EOF inside the length prefix is a truncated frame too")
    func endOfStreamInHeader() throws {
        var decoder = FrameDecoder()
        decoder.append([0, 0])
        #expect(throws: FrameError.truncated(received: 2, expected: nil)) { try decoder.finish() }
    }

    @Test("EOF between frames is a clean end")
    func endOfStreamBetweenFrames() throws {
        var decoder = FrameDecoder()
        decoder.append(try frame("x"))
        _ = try decoder.nextFrame()
        try decoder.finish()
    }

    @Test("an oversize length is refused from the 4 prefix bytes alone, before any payload")
    func oversizeRefusedFromHeader() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 1024)
        decoder.append([0, 0, 0x04, 0x01])
        #expect(throws: FrameError.payloadTooLarge(length: 1025, limit: 1024)) { try decoder.nextFrame() }
        // The failure sticks: nothing more is decoded from this stream.
        decoder.append(try frame("late"))
        #expect(throws: FrameError.payloadTooLarge(length: 1025, limit: 1024)) { try decoder.nextFrame() }
        #expect(decoder.bufferedByteCount <= 8)
    }

    @Test("an absurd length (4 GiB) is refused without allocating")
    func absurdLength() throws {
        var decoder = FrameDecoder()
        decoder.append([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: FrameError.payloadTooLarge(length: Int(UInt32.max), limit: Frame.defaultMaximumPayloadLength)) {
            try decoder.nextFrame()
        }
    }

    @Test("a payload exactly at the limit is accepted")
    func payloadAtLimit() throws {
        var decoder = FrameDecoder(maximumPayloadLength: 16)
        decoder.append(try Frame.encode([UInt8](repeating: 1, count: 16), maximumPayloadLength: 16))
        #expect(try decoder.nextFrame()?.count == 16)
    }

    @Test("encoding refuses a payload the peer would refuse")
    func encodeRefusesOversize() {
        #expect(throws: FrameError.payloadTooLarge(length: 17, limit: 16)) {
            try Frame.encode([UInt8](repeating: 0, count: 17), maximumPayloadLength: 16)
        }
    }

    @Test("frame errors read as one plain sentence")
    func errorDescriptions() {
        #expect(FrameError.payloadTooLarge(length: 20, limit: 10).description == "a frame announced 20 bytes, more than the limit of 10")
        #expect(FrameError.truncated(received: 7, expected: 14).description.contains("7 of 14 bytes"))
    }

    @Test("a long stream of frames split at random points decodes exactly")
    func randomSplits() throws {
        var generator = SeededRandom(seed: 42)
        let payloads = (0 ..< 200).map { index in String(repeating: "x", count: Int(generator.next() % 300)) + "\(index)" }
        let stream = try payloads.flatMap { try frame($0) }
        var decoder = FrameDecoder()
        var decoded: [String] = []
        var offset = 0
        while offset < stream.count {
            let chunk = min(stream.count - offset, Int(generator.next() % 700) + 1)
            decoder.append(stream[offset ..< offset + chunk])
            offset += chunk
            while let payload = try decoder.nextFrame() {
                decoded.append(String(decoding: payload, as: UTF8.self))
            }
        }
        #expect(decoded == payloads)
    }
}
