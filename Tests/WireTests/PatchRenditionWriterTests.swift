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
        var random = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0 ..< (depth > 2 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .integer(Int64.random(in: Int64.min ... Int64.max, using: &random))
            case 3: return .double(Double.random(in: -1e6 ... 1e6, using: &random))
            case 4: return .string(String((0 ..< Int.random(in: 0 ... 8, using: &random)).map { _ in "ab\"\\/~é\n\t\u{0}\u{7f}\u{9b}😀".randomElement(using: &random)! }))
            case 5: return .array((0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in value(depth + 1) })
            default: return .object(Dictionary((0 ..< Int.random(in: 0 ... 3, using: &random)).map { (["k\($0)", "é", "a\"", "Z", ""].randomElement(using: &random)!, value(depth + 1)) }, uniquingKeysWith: { a, _ in a }))
            }
        }
        func pointer() -> JSONPointer {
            JSONPointer(tokens: (0 ..< Int.random(in: 0 ... 3, using: &random)).map { _ in ["a", "0", "~", "/", "-", "é", "\"", "\u{1}"].randomElement(using: &random)! })
        }
        for round in 0 ..< 2000 {
            let patch: JSONPatch = (0 ..< Int.random(in: 0 ... 4, using: &random)).map { _ in
                switch Int.random(in: 0 ..< 6, using: &random) {
                case 0: return .add(pointer(), value(0))
                case 1: return .remove(pointer())
                case 2: return .replace(pointer(), value(0))
                case 3: return JSONPatchOperation(op: .copy, path: pointer(), from: pointer())
                case 4: return JSONPatchOperation(op: .test, path: pointer(), value: value(0))
                default: return .move(from: pointer(), to: pointer())
                }
            }
            let frame = try #require(RenditionFrame.patchFrame(revision: UInt64(round), patch: patch))
            #expect(frame == (try Self.general(revision: UInt64(round), patch: patch)))
        }
    }
}
