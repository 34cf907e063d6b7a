import Wire

/// `frame-decoder`: ``FrameDecoder`` fed a stream in chunks of sizes chosen by the input, against
/// a reference decoder written plainly here that reads the whole stream at once. They must
/// return the same payloads, fail with the same error at the same point, stay failed after it,
/// and say the same thing when the stream ends.
///
/// The input: a byte choosing the payload limit (small limits make the too-large error
/// common), a byte choosing the first frame's own limit, a byte saying how many chunk sizes
/// follow, the chunk sizes (used in turn, over and over), then the stream itself.
public enum FrameDecoderTarget: FuzzTarget {
    public static let name = "frame-decoder"
    public static let summary = "FrameDecoder fed in chunks of varying size agrees with a whole-stream reference decoder"

    /// What a decoder made of a stream: the payloads, then either an error or how it ended.
    struct Outcome: Equatable {
        var frames: [[UInt8]] = []
        var error: FrameError?
        /// What `finish()` says once the stream has ended (nil: it ended cleanly).
        var ending: FrameError?
    }

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        var choices = FuzzInput(input)
        let limitChoice = choices.byte()
        let limit = limitChoice == 0xFF ? Frame.defaultMaximumPayloadLength : Int(limitChoice)
        let firstChoice = choices.byte()
        let firstLimit: Int? = firstChoice >= 0x80 ? nil : Int(firstChoice) * 2
        let chunkSizes = choices.bytes(Int(choices.byte() % 16)).map { Int($0) % 64 + 1 }
        let stream = choices.rest()

        let expected = reference(stream, limit: limit, firstLimit: firstLimit)
        let actual = try incremental(stream, chunkSizes: chunkSizes.isEmpty ? [stream.count + 1] : chunkSizes, limit: limit, firstLimit: firstLimit)
        guard actual == expected else {
            throw FuzzFinding("""
                the decoder and the reference differ (limit \(limit), first limit \(firstLimit.map(String.init) ?? "none"), chunks \(chunkSizes)):
                  decoder:   \(actual.frames.count) frames \(actual.frames.map(\.count)), error \(String(describing: actual.error)), end \(String(describing: actual.ending))
                  reference: \(expected.frames.count) frames \(expected.frames.map(\.count)), error \(String(describing: expected.error)), end \(String(describing: expected.ending))
                """)
        }
    }

    /// The stream through ``FrameDecoder``, a chunk at a time; the raw-memory and the sequence
    /// appends taken in turn.
    static func incremental(_ stream: [UInt8], chunkSizes: [Int], limit: Int, firstLimit: Int?) throws(FuzzFinding) -> Outcome {
        var decoder = FrameDecoder(maximumPayloadLength: limit, maximumFirstPayloadLength: firstLimit)
        var outcome = Outcome()
        var offset = 0
        var chunk = 0
        feeding: while offset < stream.count {
            let end = min(stream.count, offset + chunkSizes[chunk % chunkSizes.count])
            if chunk % 2 == 0 {
                decoder.append(stream[offset ..< end])
            } else {
                stream[offset ..< end].withUnsafeBytes { decoder.append($0) }
            }
            chunk += 1
            offset = end
            while true {
                do {
                    guard let frame = try decoder.nextFrame() else { break }
                    outcome.frames.append(frame)
                } catch {
                    outcome.error = error
                    break feeding
                }
            }
        }
        if let failure = outcome.error {
            // A failed decoder stays failed, with the same error.
            var again: FrameError?
            do {
                _ = try decoder.nextFrame()
            } catch {
                again = error
            }
            guard again == failure else {
                throw FuzzFinding("after \(failure) the decoder said \(again.map(String.init(describing:)) ?? "nothing wrong")")
            }
        }
        do {
            try decoder.finish()
        } catch {
            outcome.ending = error
        }
        return outcome
    }

    /// The plain reading of the whole stream: prefix, limit, payload, until it runs out.
    static func reference(_ stream: [UInt8], limit: Int, firstLimit: Int?) -> Outcome {
        var outcome = Outcome()
        var offset = 0
        while true {
            let remaining = stream.count - offset
            if remaining == 0 { return outcome }
            if remaining < 4 {
                outcome.ending = .truncated(received: remaining, expected: nil)
                return outcome
            }
            let length = stream[offset ..< offset + 4].reduce(0) { $0 << 8 | Int($1) }
            // The first frame's own limit is only ever smaller (a larger one is cut to the limit).
            let frameLimit = outcome.frames.isEmpty ? min(firstLimit ?? limit, limit) : limit
            if length > frameLimit {
                let error = FrameError.payloadTooLarge(length: length, limit: frameLimit)
                outcome.error = error
                outcome.ending = error
                return outcome
            }
            if remaining < 4 + length {
                outcome.ending = .truncated(received: remaining, expected: 4 + length)
                return outcome
            }
            outcome.frames.append(Array(stream[offset + 4 ..< offset + 4 + length]))
            offset += 4 + length
        }
    }
}
