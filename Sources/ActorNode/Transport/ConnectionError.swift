import Wire

/// Why a connection stopped delivering frames or accepting writes.
public enum ConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The byte stream could not be cut into frames.
    case frame(FrameError)
    /// A read or write failed (e.g. the peer reset the connection).
    case system(SystemError)
    /// The connection was closed on this side.
    case closed
    /// The peer held more unprocessed input than the process-wide budget allows (see
    /// ``InputBudget``): `held` bytes, with a hard limit of `limit` for all peers together.
    case overBudget(held: Int, limit: Int)

    public var description: String {
        switch self {
        case let .frame(error): return error.description
        case let .system(error): return error.description
        case .closed: return "the connection is closed"
        case let .overBudget(held, limit): return "this client held \(held) bytes of input not yet processed, and all clients together passed the limit of \(limit) bytes"
        }
    }
}
