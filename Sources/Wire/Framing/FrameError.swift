/// Why a byte stream could not be cut into frames.
package enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A length prefix announced more than the limit. Detected from the 4 prefix bytes alone,
    /// before any buffer for the payload exists.
    case payloadTooLarge(length: Int, limit: Int)
    /// The stream ended inside a frame: `received` bytes of a frame whose prefix and payload
    /// would total `expected` bytes (`expected` is nil when even the prefix was incomplete).
    case truncated(received: Int, expected: Int?)

    package var description: String {
        switch self {
        case let .payloadTooLarge(length, limit):
            return "a frame announced \(length) bytes, more than the limit of \(limit)"
        case let .truncated(received, expected?):
            return "the stream ended inside a frame (\(received) of \(expected) bytes received)"
        case let .truncated(received, nil):
            return "the stream ended inside a frame's length prefix (\(received) of \(Frame.headerLength) bytes received)"
        }
    }
}
