import Testing
import Wire

/// The core writes a patch rendition by hand: byte for byte what the wire's encoder writes for
/// the same rendition, whatever the operations, pointers and values.
@Suite("Patch rendition writer")
struct PatchRenditionWriterTests {
    private static func general(revision: UInt64, patch: JSONPatch) throws -> [UInt8] {
        try Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.rendition(Rendition(revision: revision, content: .patch(patch)))))
    }

    @Test("patches as the core makes them, and the edges: no operation, every kind, escapes in pointers and values")
    func examples() throws {
        let patches: [JSONPatch] = [
            [],
            [.replace(JSONPointer("/counter/value")!, .integer(3))],
            [
                .add(JSONPointer("/todo/items/-")!, .object(["text": .string("a \"b\" ~/ é\u{7f}\u{85}\n"), "id": .integer(2)])),
                .remove(JSONPointer("/todo/items/0")!),
                .move(from: JSONPointer("/a~1b/0")!, to: JSONPointer("/c~0d/1")!),
                JSONPatchOperation(op: .copy, path: JSONPointer("/x")!, from: JSONPointer("/\u{1b}[31m")!),
                JSONPatchOperation(op: .test, path: JSONPointer("/t")!, value: .array([.bool(true), .null, .double(-0.5), .double(1e300)])),
                .replace(JSONPointer("")!, .double(1.5)),
            ],
        ]
        for (revision, patch) in patches.enumerated() {
            let frame = try #require(RenditionFrame.patchFrame(revision: UInt64(revision), patch: patch))
            #expect(frame == (try Self.general(revision: UInt64(revision), patch: patch)), "\(String(decoding: frame.dropFirst(4), as: UTF8.self))")
        }
        let largest = UInt64(Int64.max)
        #expect(RenditionFrame.patchFrame(revision: largest, patch: [.replace(JSONPointer("/a")!, .integer(1))]) == (try Self.general(revision: largest, patch: [.replace(JSONPointer("/a")!, .integer(1))])))
    }

    @Test("a number JSON cannot write, and a revision past 2^63-1, are left to the general encoder")
    func nonFinite() {
        #expect(RenditionFrame.patchFrame(revision: UInt64(Int64.max) + 1, patch: []) == nil)
        #expect(RenditionFrame.patchFrame(revision: 1, patch: [.replace(JSONPointer("/a")!, .array([.double(.nan)]))]) == nil)
        #expect(RenditionFrame.patchFrame(revision: 1, patch: [.add(JSONPointer("/a")!, .double(.infinity))]) == nil)
    }

    @Test("2,000 random patches of random values")
    func random() throws {
        var random = RandomJSON()
        for round in 0 ..< 2000 {
            let patch = random.patch()
            let frame = try #require(RenditionFrame.patchFrame(revision: UInt64(round), patch: patch))
            #expect(frame == (try Self.general(revision: UInt64(round), patch: patch)))
        }
    }
}
