import Testing
@testable import Wire

/// The core takes each payload as a slice of what its decoder received (no copy): the same
/// payloads as the copying reader, however the bytes arrive, and a slice that is kept stays
/// what it was while more bytes come.
@Suite("Framing without a copy")
struct FrameDecoderSliceTests {
    @Test("slices and copies give the same payloads and the same count of bytes held, whatever the reads")
    func sameAsCopies() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0 ..< 200 {
            var payloads: [[UInt8]] = []
            var stream: [UInt8] = []
            for _ in 0 ..< Int.random(in: 1 ... 12, using: &random) {
                let payload = (0 ..< Int.random(in: 0 ... 300, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
                payloads.append(payload)
                stream += try Frame.encode(payload)
            }
            var copying = FrameDecoder()
            var slicing = FrameDecoder()
            var copies: [[UInt8]] = []
            var slices: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + Int.random(in: 1 ... 700, using: &random))
                copying.append(stream[offset ..< end])
                slicing.append(stream[offset ..< end])
                offset = end
                while let payload = try copying.nextFrame() { copies.append(payload) }
                while let payload = try slicing.nextFrameSlice() { slices.append(Array(payload)) }
                #expect(slicing.bufferedByteCount == copying.bufferedByteCount)
            }
            #expect(copies == payloads)
            #expect(slices == payloads)
            #expect(slicing.bufferedByteCount == 0)
            try slicing.finish()
        }
    }

    @Test("a slice kept while more bytes arrive keeps its bytes")
    func keptSlice() throws {
        var decoder = FrameDecoder()
        decoder.append(try Frame.encode(Array("first".utf8)))
        let kept = try #require(try decoder.nextFrameSlice())
        decoder.append(try Frame.encode(Array("second".utf8)))
        let next = try #require(try decoder.nextFrameSlice())
        #expect(String(decoding: kept, as: UTF8.self) == "first")
        #expect(String(decoding: next, as: UTF8.self) == "second")
        #expect(try decoder.nextFrameSlice() == nil)
    }
}
