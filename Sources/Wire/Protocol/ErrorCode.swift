/// The codes of `error` frames. An error is always followed by the sender closing the connection.
package enum ErrorCode: String, Codable, Sendable {
    /// The client speaks another protocol version; the message names both.
    case versionMismatch = "version_mismatch"
    /// A frame's payload is not a valid message (bad JSON, unknown type, missing field).
    case badFrame = "bad_frame"
    /// A frame announced a length above the maximum.
    case frameTooLarge = "frame_too_large"
    /// The stream ended inside a frame.
    case truncatedFrame = "truncated_frame"
    /// The first frame was not `hello`.
    case helloRequired = "hello_required"
    /// A message that makes no sense at this point (a second hello).
    case unexpectedMessage = "unexpected_message"
    /// No hello arrived in time.
    case handshakeTimeout = "handshake_timeout"
    /// The client fell too far behind reading what the core sent.
    case tooSlow = "too_slow"
    /// The client held more unprocessed input than the core's budget for all clients allows
    /// (many large frames at once); the message says how much.
    case tooLarge = "too_large"
    /// The peer runs as another user (and is not root).
    case permissionDenied = "permission_denied"
    /// The sender failed on its side (a message it could not encode); the message says what.
    case internalError = "internal_error"
    /// The frame crashed the core once before it could be read as an action; it is refused
    /// from then on (an action that crashed the core gets a `reject` with this code instead).
    case crashedCore = "crashed_core"
}

/// The payload of an `error` frame.
package struct ErrorMessage: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// An ``ErrorCode`` raw value; unknown codes are kept as they came.
    package var code: String
    package var message: String
    /// The protocol version the sender speaks, included with `version_mismatch`.
    package var protocolVersion: Int?

    package init(_ code: ErrorCode, _ message: String, protocolVersion: Int? = nil) {
        self.code = code.rawValue
        self.message = message
        self.protocolVersion = protocolVersion
    }

    enum CodingKeys: String, CodingKey {
        case code, message
        case protocolVersion = "protocol"
    }

    package var description: String { "\(code): \(message)" }
}
