import Testing
@testable import Wire

/// The plain-action reader skips a client id, and the JSON scanner a string's plain start,
/// eight bytes at a time: the test of eight bytes at once says what the byte-by-byte test says
/// of each, and a run ends where the first word that is not plain starts.
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
                #expect(PlainBytes.allPlain(word(bytes)) == plain(UInt8(value)), "byte \(value) at \(place)")
            }
        }
    }

    @Test("random words, and words of bytes near the edges")
    func randomWords() {
        var random = SystemRandomNumberGenerator()
        let edges: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xFF, 0x41]
        for round in 0 ..< 20000 {
            let bytes = (0 ..< 8).map { _ in round % 2 == 0 ? UInt8.random(in: 0 ... 255, using: &random) : edges.randomElement(using: &random)! }
            #expect(PlainBytes.allPlain(word(bytes)) == bytes.allSatisfy(plain), "\(bytes)")
        }
    }

    @Test("a run of plain words ends at the first word that is not plain, or where fewer than eight bytes are left")
    func runs() {
        var random = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array("abc xyz-09".utf8) + [0x22, 0x5C, 0x0A, 0xC3, 0x7F]
        for _ in 0 ..< 5000 {
            let text = (0 ..< Int.random(in: 0 ... 40, using: &random)).map { _ in
                Int.random(in: 0 ..< 6, using: &random) == 0 ? alphabet.randomElement(using: &random)! : UInt8(ascii: "k")
            }
            let start = Int.random(in: 0 ... text.count, using: &random)
            var expected = start
            while text.count - expected >= 8, text[expected ..< expected + 8].allSatisfy(plain) { expected += 8 }
            let end = text.withUnsafeBufferPointer { PlainBytes.endOfPlainWords(in: $0, from: start) }
            #expect(end == expected, "\(text) from \(start)")
        }
    }
}

