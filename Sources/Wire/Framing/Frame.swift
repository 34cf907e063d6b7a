/// Length-prefixed framing, the only thing both ends must agree on before JSON:
/// a 4-byte big-endian unsigned length N, then N bytes of payload.
package enum Frame {
    /// Bytes in the length prefix.
    package static let headerLength = 4

    /// The largest payload accepted unless configured otherwise: 16 MiB.
    package static let defaultMaximumPayloadLength = 16 * 1024 * 1024

    /// The largest payload the 4-byte prefix can describe.
    package static let absoluteMaximumPayloadLength = Int(UInt32.max)

    /// Returns `payload` with its length prefix, ready to write.
    ///
    /// Throws ``FrameError/payloadTooLarge(length:limit:)`` rather than writing a frame the
    /// peer would refuse.
    package static func encode(
        _ payload: some Collection<UInt8>,
        maximumPayloadLength: Int = defaultMaximumPayloadLength
    ) throws(FrameError) -> [UInt8] {
        let length = payload.count
        let limit = min(maximumPayloadLength, absoluteMaximumPayloadLength)
        guard length <= limit else {
            throw .payloadTooLarge(length: length, limit: limit)
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerLength + length)
        let start = beginFrame(in: &bytes)
        bytes.append(contentsOf: payload)
        endFrame(in: &bytes, startingAt: start)
        return bytes
    }

    /// Starts a frame at the end of `bytes`, whose payload the caller appends next: room for
    /// the length prefix, which ``endFrame(in:startingAt:)`` writes once the payload is in.
    /// Returns where the frame starts.
    ///
    /// A frame is thereby written in place, in one buffer, without knowing its length first
    /// and without copying its payload (the writers of acks, welcomes and snapshots; several
    /// frames in one buffer, for one write).
    /// - Parameter bytes: where the frame goes.
    package static func beginFrame(in bytes: inout [UInt8]) -> Int {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: headerLength))
        return start
    }

    /// Writes the length prefix of the frame that starts at `start`, its payload being every
    /// byte after the prefix to the end of `bytes`: the one place a frame's 4-byte big-endian
    /// length is written.
    /// - Parameters:
    ///   - bytes: the buffer holding the frame, its payload last.
    ///   - start: what ``beginFrame(in:)`` returned.
    /// - Precondition: the payload is at most ``absoluteMaximumPayloadLength`` bytes (a caller
    ///   that cannot know it uses ``encode(_:maximumPayloadLength:)``, which throws instead).
    package static func endFrame(in bytes: inout [UInt8], startingAt start: Int) {
        let payloadLength = bytes.count - start - headerLength
        precondition(payloadLength >= 0 && payloadLength <= absoluteMaximumPayloadLength, "a frame's payload of \(payloadLength) bytes")
        let length = UInt32(truncatingIfNeeded: payloadLength)
        bytes[start] = UInt8(truncatingIfNeeded: length >> 24)
        bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[start + 3] = UInt8(truncatingIfNeeded: length)
    }
}

extension ByteCursor {
    /// Writes a frame whose payload `payload` writes: its length prefix, filled in once the
    /// payload is written, and the payload (at most 4 + the payload's bytes).
    /// - Parameter payload: writes the payload.
    package mutating func writeFrame(_ payload: (inout ByteCursor) -> Void) {
        let start = count
        writeZeros(Frame.headerLength)
        payload(&self)
        let length = count - start - Frame.headerLength
        precondition(length <= Frame.absoluteMaximumPayloadLength, "a frame's payload of \(length) bytes")
        store(bigEndian: UInt32(truncatingIfNeeded: length), at: start)
    }
}
