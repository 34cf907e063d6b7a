import Glibc

/// Connects to a server's Unix socket as a careful client does: the socket's directory must be
/// private to this user, a full backlog is waited out, and the process that serves the socket
/// must be this user or root (`SO_PEERCRED`), else the connection is closed before a byte is sent.
package enum ServerConnector {
    /// Why no trusted connection was made.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Nothing is at the path: no socket file.
        case noSocket(String)
        /// A socket file is there but nobody accepts (refused, permission denied, ...).
        case unreachable(String)
        /// The backlog stayed full for the whole timeout.
        case timedOut(String)
        /// The directory or the serving process is not one this user can trust.
        case untrusted(String)
        /// The path does not fit in a socket address.
        case badPath(String)

        package var description: String {
            switch self {
            case let .noSocket(reason), let .unreachable(reason), let .timedOut(reason), let .untrusted(reason), let .badPath(reason):
                return reason
            }
        }
    }

    /// Connects to `path`, retrying while the server's backlog is full, for at most `timeout`.
    /// - Parameters:
    ///   - path: the socket.
    ///   - timeout: how long to wait out a full backlog.
    ///   - limits: the limits of the new connection.
    ///   - loop: the event loop the connection is watched by.
    /// - Returns: the connection, reading already.
    package static func connect(
        to path: String, timeout: Duration, limits: SocketConnection.Limits = .init(), loop: EventLoop = .shared
    ) async throws(Failure) -> SocketConnection {
        try verifyDirectory(of: path)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let fd = try attempt(path, deadline: deadline, timeout: timeout) {
                return SocketConnection(fd: fd, limits: limits, loop: loop)
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// ``connect(to:timeout:limits:loop:)`` for a thread that may block (a one-shot command's
    /// main thread, never Swift's cooperative pool): the same checks, and a full backlog is
    /// waited out by sleeping this thread. No event loop is involved.
    /// - Parameters:
    ///   - path: the socket.
    ///   - timeout: how long to wait out a full backlog.
    /// - Returns: the connected socket, non-blocking and close-on-exec; the caller owns it.
    package static func connectBlocking(to path: String, timeout: Duration) throws(Failure) -> Int32 {
        try verifyDirectory(of: path)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let fd = try attempt(path, deadline: deadline, timeout: timeout) { return fd }
            usleep(10_000)
        }
    }

    private static func verifyDirectory(of path: String) throws(Failure) {
        do {
            try SocketPath.verifyDirectory(of: path)
        } catch {
            throw .untrusted(error.description)
        }
    }

    /// One connection attempt: the trusted socket, or nil when the backlog is full and there is
    /// time left to try again.
    private static func attempt(_ path: String, deadline: ContinuousClock.Instant, timeout: Duration) throws(Failure) -> Int32? {
        let attempt: UnixSocket.ConnectAttempt
        do {
            attempt = try UnixSocket.connect(to: path)
        } catch {
            throw .badPath(error.description)
        }
        switch attempt {
        case let .connected(fd):
            if let refusal = untrustedServer(fd, path: path) {
                close(fd)
                throw .untrusted(refusal)
            }
            return fd
        case .busy:
            guard ContinuousClock.now < deadline else {
                throw .timedOut("the core at \(path) is too busy to accept a connection (waited \(timeout.readable))")
            }
            return nil
        case let .failed(error):
            let message = reachabilityMessage(path: path, error: error)
            throw error.code == ENOENT ? .noSocket(message) : .unreachable(message)
        }
    }

    /// Why the process serving a freshly connected socket is not to be trusted, or nil when it
    /// runs as this user or as root (SO_PEERCRED: the credentials of the process that made the
    /// socket listen, as the kernel recorded them).
    private static func untrustedServer(_ fd: Int32, path: String) -> String? {
        guard let server = UnixSocket.peerCredentials(fd) else {
            return "refusing to talk to \(path): the kernel cannot say who serves it"
        }
        guard server.uid != getuid(), server.uid != 0 else { return nil }
        return "refusing to talk to \(path): it is served by pid \(server.pid) of user \(server.uid), not by you (\(getuid())) or root, so it is not your core; remove \(path) or choose another --socket"
    }

    private static func reachabilityMessage(path: String, error: SystemError) -> String {
        switch error.code {
        case ENOENT: return "no core is serving \(path) (no such socket)"
        case ECONNREFUSED: return "no core is serving \(path) (connection refused)"
        case EACCES: return "cannot reach the core at \(path): permission denied"
        default: return "cannot reach the core at \(path): \(error.reason)"
        }
    }
}
