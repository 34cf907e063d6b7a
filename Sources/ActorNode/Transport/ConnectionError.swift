import Wire

/// Why a connection stopped delivering frames or accepting writes.
package enum ConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte stream could not be cut into frames.
    case frame(FrameError)
    /// A read or write failed (e.g. the peer reset the connection).
    case system(SystemError)
    /// The connection was closed on this side.
    case closed

    package var description: String {
        switch self {
        case let .frame(error): return error.description
        case let .system(error): return error.description
        case .closed: return "the connection is closed"
        }
    }
}
