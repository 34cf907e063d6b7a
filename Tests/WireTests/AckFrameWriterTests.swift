import Testing
import Wire

/// The core's ack, written by hand (``ScriptFrames/ackFrame(seq:revision:)``), is byte for byte
/// what the general encoder writes for the same ack, and the hand reader beside it
/// (``ScriptFrames/ack(_:)``) reads it back whenever its numbers are in the reader's range
/// (below 10^18); above, it leaves the frame to the general reader and never reads a wrong ack.
@Suite("Ack frame writer")
struct AckFrameWriterTests {
    /// Up to 2^63 - 1, the largest whole number the wire carries.
    private static let numbers: [UInt64] = [0, 1, 9, 10, 42, 999_999_999_999_999_999, 1_000_000_000_000_000_000, UInt64(Int64.max)]
    /// Past what the wire carries: the general encoder refuses them.
    private static let beyond: [UInt64] = [UInt64(Int64.max) + 1, UInt64.max]

    @Test("the writer's bytes are the general encoder's, for every pair of numbers")
    func writtenAsTheEncoderWrites() throws {
        for seq in Self.numbers {
            for revision in Self.numbers {
                let written = ScriptFrames.ackFrame(seq: seq, revision: revision)
                let encoded = try Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.ack(Ack(seq: seq, revision: revision))))
                #expect(written == encoded, "seq \(seq), revision \(revision)")
            }
        }
    }

    @Test("the hand reader reads the writer's ack back in its range, and says nothing past it; the general reader reads every one")
    func readBack() throws {
        for seq in Self.numbers {
            for revision in Self.numbers {
                let payload = try Self.payload(ScriptFrames.ackFrame(seq: seq, revision: revision))
                let limit: UInt64 = 1_000_000_000_000_000_000
                if seq < limit, revision < limit {
                    #expect(ScriptFrames.ack(payload) == Ack(seq: seq, revision: revision), "seq \(seq), revision \(revision)")
                } else {
                    #expect(ScriptFrames.ack(payload) == nil, "seq \(seq), revision \(revision)")
                }
                #expect(try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) == .ack(Ack(seq: seq, revision: revision)))
            }
        }
    }

    @Test("past 2^63 - 1, which the general encoder refuses, the writer writes the digits and no reader reads a wrong ack")
    func beyondTheWire() throws {
        for seq in Self.numbers + Self.beyond {
            for revision in Self.beyond {
                #expect(throws: EncodingError.self) { try WireJSON.encode(ServerMessage<JSONValue>.ack(Ack(seq: seq, revision: revision))) }
                let payload = try Self.payload(ScriptFrames.ackFrame(seq: seq, revision: revision))
                #expect(String(decoding: payload, as: UTF8.self) == #"{"ack":{"revision":\#(revision),"seq":\#(seq)}}"#)
                #expect(ScriptFrames.ack(payload) == nil)
                #expect(throws: (any Error).self) { try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) }
            }
        }
    }

    private static func payload(_ frame: [UInt8]) throws -> [UInt8] {
        var decoder = FrameDecoder()
        decoder.append(frame)
        return try #require(try decoder.nextFrame())
    }
}
