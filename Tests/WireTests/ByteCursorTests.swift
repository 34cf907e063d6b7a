import Testing
@_spi(ByteWriting) @testable import Wire

/// The cursor the core writes acks and journal records through: numbers as their decimal
/// digits, times as the wire writes them, a frame's length filled in after its payload.
@Suite("Byte cursor")
struct ByteCursorTests {
    private func text(_ body: (inout ByteCursor) -> Void) -> String {
        var bytes: [UInt8] = Array("x".utf8)
        bytes.appendWritten(atMost: 64, body)
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    @Test("whole numbers are their decimal digits, at every length and at the edges")
    func decimals() {
        var values: [UInt64] = Array(0 ... 1_200) + [UInt64.max, UInt64.max - 1, 12_345_678_901_234_567_890]
        var power: UInt64 = 1
        for _ in 0 ..< 19 {
            power *= 10
            values += [power - 1, power, power + 1, power / 2 * 3]
        }
        for value in values {
            #expect(text { $0.writeDecimal(value) } == String(value))
        }
    }

    @Test("millionths are written with at most six digits after the point, without trailing zeros")
    func microseconds() {
        #expect(text { $0.writeMicroseconds(0) } == "0")
        #expect(text { $0.writeMicroseconds(1_000_000) } == "1")
        #expect(text { $0.writeMicroseconds(1_500_000) } == "1.5")
        #expect(text { $0.writeMicroseconds(1_764_000_000_000_001) } == "1764000000.000001")
        #expect(text { $0.writeMicroseconds(1_764_000_000_123_450) } == "1764000000.12345")
        #expect(text { $0.writeMicroseconds(7) } == "0.000007")
    }

    @Test("every fraction of a second is written as its digits without trailing zeros")
    func everyFraction() {
        for fraction in stride(from: UInt64(0), to: 1_000_000, by: 1) where fraction % 997 == 0 || fraction % 1_000 == 0 || fraction < 1_000 {
            var expected = "1764000000"
            if fraction != 0 {
                var digits = String(fraction)
                digits = String(repeating: "0", count: 6 - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                expected += "." + digits
            }
            #expect(text { $0.writeMicroseconds(1_764_000_000_000_000 + fraction) } == expected)
        }
    }

    @Test("bytes of every length up to 40 are written as they are, after any other")
    func bytesOfEveryLength() {
        let source = (0 ..< 40).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        for offset in 0 ..< 3 {
            for length in 0 ... 40 {
                var bytes: [UInt8] = []
                bytes.appendWritten(atMost: 48) { cursor in
                    for _ in 0 ..< offset { cursor.write(UInt8(ascii: "-")) }
                    source.withUnsafeBytes { cursor.write(UnsafeRawBufferPointer(rebasing: $0[0 ..< length])) }
                    cursor.write(UInt8(ascii: "."))
                }
                #expect(bytes == Array(repeating: UInt8(ascii: "-"), count: offset) + source[0 ..< length] + [UInt8(ascii: ".")])
            }
        }
    }

    @Test("a frame's length is filled in once its payload is written")
    func frames() {
        var bytes: [UInt8] = []
        bytes.appendWritten(atMost: 32) { cursor in
            cursor.writeFrame { $0.write(#"{"bye":{}}"#) }
        }
        #expect(bytes == [0, 0, 0, 10] + Array(#"{"bye":{}}"#.utf8))
    }
}
