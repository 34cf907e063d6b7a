/// Length-prefixed framing, the only thing both ends must agree on before JSON:
/// a 4-byte big-endian unsigned length N, then N bytes of payload.
public enum Frame {
    /// Bytes in the length prefix.
    public static let headerLength = 4

    /// The largest payload accepted unless configured otherwise: 16 MiB.
    public static let defaultMaximumPayloadLength = 16 * 1024 * 1024

    /// The largest payload the 4-byte prefix can describe.
    public static let absoluteMaximumPayloadLength = Int(UInt32.max)

    /// Returns `payload` with its length prefix, ready to write.
    ///
    /// Throws ``FrameError/payloadTooLarge(length:limit:)`` rather than writing a frame the
    /// peer would refuse.
    public static func encode(
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
        appendHeader(length: UInt32(length), to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    static func appendHeader(length: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: length >> 24))
        bytes.append(UInt8(truncatingIfNeeded: length >> 16))
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
    }
}
