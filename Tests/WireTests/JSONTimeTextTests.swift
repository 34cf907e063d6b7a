import FoundationEssentials
import Testing
@testable import Wire

/// Times in whole microseconds (what the core's clock gives) are written from the integer, not
/// by the general shortest-text algorithm: the text must be exactly the one that algorithm
/// writes, and read back as the same double.
@Suite("JSON time text")
struct JSONTimeTextTests {
    /// The general way: Swift's shortest text, without a trailing ".0".
    private func general(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private func written(_ value: Double) -> String {
        String(decoding: JSONFragment.double(value), as: UTF8.self)
    }

    @Test("whole microseconds from 1970 to 2242 are written as the general algorithm writes them")
    func sameText() {
        var generator = SystemRandomNumberGenerator()
        var fast = 0
        for _ in 0 ..< 200_000 {
            let microseconds = UInt64.random(in: 1_000_000 ..< 8_589_934_592_000_000, using: &generator)
            let value = Double(microseconds) / 1_000_000
            #expect(JSONByteWriter.wholeMicroseconds(value) != nil)
            fast += 1
            let text = written(value)
            #expect(text == general(value), "\(microseconds) µs")
            #expect(Double(text) == value)
        }
        #expect(fast == 200_000)
    }

    @Test("edges: whole seconds, single digits after the point, leading zeros in the fraction")
    func edges() {
        for value in [1.0, 1.5, 1.000001, 1.00001, 10.05, 1_763_942_400.0, 1_763_942_400.1, 1_763_942_400.000001, 1_763_942_400.10203, 8_589_934_591.999999] {
            #expect(written(value) == general(value))
        }
    }

    @Test("anything else takes the general way")
    func others() {
        for value in [0.5, 0.1, 1e-7, 0, -1_763_942_400.5, 8_589_934_592.5, 1e20, .leastNonzeroMagnitude, 1.0000001, 1_763_942_400.1234567, Double.pi, 1.0000005, 1.0000004999999999, 1_763_942_400.0000005, 8_589_934_591.9999995] {
            #expect(written(value) == general(value), "\(value)")
        }
        #expect(JSONByteWriter.wholeMicroseconds(1.0000001) == nil)
        #expect(JSONByteWriter.wholeMicroseconds(0.5) == nil)
        #expect(JSONByteWriter.wholeMicroseconds(8_589_934_592) == nil)
    }
}
