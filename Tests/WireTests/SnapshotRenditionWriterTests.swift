import Testing
import Wire

/// A snapshot rendition written by hand around the state's text
/// (``Rendition/snapshotFrame(revision:snapshot:)``) is byte for byte what the general encoder
/// writes for the same rendition, and ``Rendition/read(_:)`` reads it back (revisions below
/// 10^18; past that it leaves the frame to the general reader).
@Suite("Snapshot rendition writer")
struct SnapshotRenditionWriterTests {
    /// Up to 2^63 - 1, the largest whole number the wire carries (the general encoder refuses
    /// more).
    private static let revisions: [UInt64] = [0, 1, 999_999_999_999_999_999, 1_000_000_000_000_000_000, UInt64(Int64.max)]
    private static let states: [JSONValue] = [
        .null, .bool(false), .integer(Int64.min), .double(-0.25), .string(""), .string("\"quoted\" \\ \u{0} \u{1F} é 買 🙂"),
        .array([.integer(1), .array([]), .object([:])]),
        .object(["todo": .object(["items": .array([.object(["id": .integer(1), "text": .string("a } ] \" \\ {")])])]), "n": .null]),
    ]

    @Test("the writer's bytes are the general encoder's")
    func writtenAsTheEncoderWrites() throws {
        for revision in Self.revisions {
            for state in Self.states {
                let written = RenditionFrame.snapshotFrame(revision: revision, snapshot: try WireJSON.encode(state))
                let encoded = try Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.rendition(Rendition(revision: revision, content: .snapshot(state)))))
                #expect(written == encoded, "revision \(revision), \(state)")
            }
        }
    }

    @Test("the hand reader reads the writer's rendition back")
    func readBack() throws {
        for revision in Self.revisions {
            for state in Self.states {
                var decoder = FrameDecoder()
                decoder.append(RenditionFrame.snapshotFrame(revision: revision, snapshot: try WireJSON.encode(state)))
                let payload = try #require(try decoder.nextFrame())
                let expected = Rendition(revision: revision, content: .snapshot(state))
                if revision < 1_000_000_000_000_000_000 {
                    #expect(RenditionFrame.read(payload) == expected, "revision \(revision), \(state)")
                } else {
                    #expect(RenditionFrame.read(payload) == nil, "revision \(revision)")
                }
                #expect(try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) == .rendition(expected))
            }
        }
    }
}
