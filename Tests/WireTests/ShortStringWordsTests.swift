import Testing
@testable import Wire

/// A tagged value's case is found among its names by comparing two words per name: the words
/// Swift keeps a short ASCII string in. If they ever stop being what the reader expects, the
/// names are still found (by their text), only slower: this says so.
@Suite("Short string words")
struct ShortStringWordsTests {
    @Test("the words worked out for a short ASCII text are those of Swift's string of it")
    func sameWords() {
        for text in ["", "a", "add", "counter", "increment", "randomize", "fifteen_chars_x"] {
            let bytes = Array(text.utf8)
            let words = bytes.withUnsafeBufferPointer { JSONTapeReader.shortASCIIStringWords($0) }
            let string = String(decoding: bytes, as: UTF8.self)
            #expect(words.map { [$0.0, $0.1] } == [unsafeBitCast(string, to: (UInt64, UInt64).self).0, unsafeBitCast(string, to: (UInt64, UInt64).self).1], "\(text)")
        }
        #expect(Array("sixteen_chars_xy".utf8).withUnsafeBufferPointer { JSONTapeReader.shortASCIIStringWords($0) } == nil)
    }
}
