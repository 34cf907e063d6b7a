import Testing
@testable import Wire

/// The list diff sees unchanged elements bit for bit before it asks `==` (``ArrayDiff``):
/// copies that did not change cost no `==` (ChunkedArrayTests.diffSkipsSharedChunks counts
/// them), and equal elements whose bits differ (a string built again, padding a copy did not
/// write) are still equal.
@Suite("ArrayDiff")
struct ArrayDiffTests {
    @Test("equal elements whose bits differ are equal: strings built again give no patch")
    func equalButStoredApart() throws {
        let texts = (0 ..< 300).map { "a text long enough to live on the heap, number \($0)" }
        let old = texts.enumerated().map { ChunkedArrayTests.Row(id: $0.offset, text: $0.element) }
        // The same texts, each built again into storage of its own.
        let new = texts.enumerated().map { ChunkedArrayTests.Row(id: $0.offset, text: String($0.element.utf8.map { Character(UnicodeScalar($0)) })) }
        #expect(new.indices.allSatisfy { new[$0].text == old[$0].text })
        let ends = old.withUnsafeBufferPointer { oldRows in
            new.withUnsafeBufferPointer { newRows in
                ArrayDiff.commonEnds(oldRows, newRows, orEqual: { oldRows[$0] == newRows[$1] })
            }
        }
        #expect(ends.prefix == 300 && ends.suffix == 0)
        #expect(try new.patch(from: old).isEmpty)
    }

    @Test("a change among padded elements is found, and only it, whatever the padding holds")
    func paddedElements() throws {
        var rows = (0 ..< 500).map { Padded(id: $0, flag: $0 % 2 == 0, count: $0) }
        let old = rows
        // Copied element by element into a new buffer: padding bytes are not written.
        rows = Array(rows.lazy.map { $0 })
        rows[250].count = -1
        var document = try JSONValue(encoding: old)
        let patch = try rows.patch(from: old)
        #expect(patch.count == 1)
        try document.apply(patch)
        #expect(document == (try JSONValue(encoding: rows)))
    }

    @Test("class references are the same only when they are the same object")
    func referencesByIdentity() {
        final class Box {}
        let boxes = (0 ..< 10).map { _ in Box() }
        var others = boxes
        others[6] = Box()
        let ends = boxes.withUnsafeBufferPointer { old in
            others.withUnsafeBufferPointer { new in ArrayDiff.commonEnds(old, new, orEqual: nil) }
        }
        #expect(ends.prefix == 6 && ends.suffix == 3)
    }
}

/// An element with padding between its fields (a Bool before an Int).
struct Padded: Codable, Sendable, Equatable, Identifiable {
    var id: Int
    var flag: Bool
    var count: Int
}
