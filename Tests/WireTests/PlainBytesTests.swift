import Testing
@testable import Wire

/// The plain-action reader skips a client id eight bytes at a time: its test of eight bytes
/// at once says what the byte-by-byte test says of each.
@Suite("Plain bytes, eight at a time")
struct PlainBytesTests {
    private func plain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    private func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    @Test("every byte value, at every place among plain ones")
    func everyByte() {
        for place in 0 ..< 8 {
            for value in 0 ... 255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[place] = UInt8(value)
                #expect(FrameScanner.allPlain(word(bytes)) == plain(UInt8(value)), "byte \(value) at \(place)")
            }
        }
    }

    @Test("random words, and words of bytes near the edges")
    func randomWords() {
        var random = SystemRandomNumberGenerator()
        let edges: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xFF, 0x41]
        for round in 0 ..< 20000 {
            let bytes = (0 ..< 8).map { _ in round % 2 == 0 ? UInt8.random(in: 0 ... 255, using: &random) : edges.randomElement(using: &random)! }
            #expect(FrameScanner.allPlain(word(bytes)) == bytes.allSatisfy(plain), "\(bytes)")
        }
    }
}
