import Testing
import Wire

/// A seq too large for 64 bits is left to the general reader (which refuses it), whichever
/// step of reading its digits overflows: it used to trap the core ("arithmetic overflow") when
/// only the addition of the last digit did.
@Suite("Plain action frames: a seq past 64 bits")
struct PlainActionSeqOverflowTests {
    @Test("a seq that overflows 64 bits at its last digit, its multiplication or far beyond is not scanned", arguments: [
        "18446744073709551616", // 2^64: 1844674407370955161 × 10 fits, + 6 does not
        "18446744073709551619",
        "18446744073709551620", // the multiplication overflows
        "99999999999999999999",
        "18446744073709551615", // 2^64 - 1: fits, but above 2^63 - 1
        "1000000000000000000000000000000",
    ])
    func overflowingSeq(_ seq: String) throws {
        let frame = Array(#"{"action":{"client":"c","seq":\#(seq),"action":"clear"}}"#.utf8)
        #expect(PlainActionFrame.scan(frame) == nil)
        #expect(throws: (any Error).self) { try WireJSON.decode(ClientMessage<JSONValue>.self, from: frame) }
    }

    @Test("the largest seq the core takes is still scanned")
    func largestSeq() {
        let frame = Array(#"{"action":{"client":"c","seq":9223372036854775807,"action":"clear"}}"#.utf8)
        #expect(PlainActionFrame.scan(frame)?.seq == UInt64(Int64.max))
    }
}
