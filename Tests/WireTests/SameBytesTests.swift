import Testing
@testable import Wire

/// The diff's bit-for-bit check of two elements (`ArrayDiff.sameBytes`) sees a difference in
/// any one byte, at every length and alignment: the words, then the 4, 2 and 1 bytes left.
@Suite("Same bytes")
struct SameBytesTests {
    @Test("a difference in any one byte is seen, at every length from 0 to 40 and every alignment")
    func everyByte() {
        let base = (0 ..< 64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0 ... 40 {
            for start in 0 ..< 8 {
                var other = base
                #expect(Self.same(base, other, start: start, count: count), "count \(count), start \(start)")
                for index in start ..< start + count {
                    other = base
                    other[index] ^= 0x10
                    #expect(!Self.same(base, other, start: start, count: count), "count \(count), start \(start), byte \(index)")
                }
                // Bytes outside the range do not count.
                other = base
                if start > 0 { other[start - 1] ^= 1 }
                other[start + count] ^= 1
                #expect(Self.same(base, other, start: start, count: count), "count \(count), start \(start), outside")
            }
        }
    }

    private static func same(_ a: [UInt8], _ b: [UInt8], start: Int, count: Int) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                ArrayDiff.sameBytes(a.baseAddress! + start, b.baseAddress! + start, count: count)
            }
        }
    }
}
