import CSystemShims
import Glibc
import Synchronization

/// A listening Unix socket whose accepted connections arrive on a channel.
///
/// Accepting happens on the ``EventLoop`` thread. Connections from another user (by
/// SO_PEERCRED) are refused unless that user is root. When the process runs out of descriptors
/// the listener pauses for a moment instead of spinning.
public final class SocketListener: EventHandler, Sendable {
    public let fd: Int32
    public let path: String
    /// Accepted connections, in order.
    public let connections = Chan<SocketConnection>()
    private let limits: SocketConnection.Limits
    /// Shared by every connection accepted here.
    public let budget: InputBudget?
    private let loop: EventLoop
    private let log: @Sendable (String) -> Void
    private let state = Mutex<ListenerState>(ListenerState())

    private struct ListenerState {
        var token: UInt64?
        var closed = false
        /// Accepting fails for want of descriptors (said once in the log, until it recovers).
        var starved = false
        var clientCount: (@Sendable () -> Int)?
    }

    /// Starts accepting on `fd`, a bound, listening, non-blocking socket.
    /// - Parameters:
    ///   - fd: the socket.
    ///   - path: its path, for messages.
    ///   - limits: the limits of each accepted connection.
    ///   - budget: the input budget all accepted connections share, if any.
    ///   - loop: the event loop that watches the socket and its connections.
    ///   - log: where refusals and descriptor shortages are logged.
    public init(
        fd: Int32, path: String, limits: SocketConnection.Limits = .init(), budget: InputBudget? = nil, loop: EventLoop = .shared,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(SystemError) {
        self.fd = fd
        self.path = path
        self.limits = limits
        self.budget = budget
        self.loop = loop
        self.log = log
        let token = try loop.register(fd, events: EPOLLIN.rawValue, handler: self)
        state.withLock { $0.token = token }
    }

    /// Tells the listener how to count the clients connected now, for its log lines.
    /// - Parameter count: returns the number of connections being served.
    public func countClients(with count: @escaping @Sendable () -> Int) {
        state.withLock { $0.clientCount = count }
    }

    public func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
        while true {
            let accepted = cama_accept_nonblocking(fd)
            if accepted >= 0 {
                let (recovered, count) = state.withLock { state -> (Bool, (@Sendable () -> Int)?) in
                    defer { state.starved = false }
                    return (state.starved, state.clientCount)
                }
                if recovered {
                    log("accepting connections again\(count.map { " (\($0()) clients connected)" } ?? "")")
                }
                if let peer = UnixSocket.peerCredentials(accepted), peer.uid != getuid(), peer.uid != 0 {
                    // The socket is new and its buffer empty: this small write cannot block.
                    let refusal = FramePump.errorFrame(.permissionDenied, "this core serves user \(getuid()) only")
                    _ = refusal.withUnsafeBytes { Glibc.send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    Glibc.close(accepted)
                    log("refused a connection from pid \(peer.pid), user \(peer.uid)")
                    continue
                }
                let connection = SocketConnection(fd: accepted, limits: limits, loop: loop, budget: budget)
                if !connections.trySend(connection) {
                    connection.close()
                }
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                let code = errno
                let (first, count) = state.withLock { state -> (Bool, (@Sendable () -> Int)?) in
                    defer { state.starved = true }
                    return (!state.starved, state.clientCount)
                }
                if first { logStarvation(code, clients: count?()) }
                pauseAccepting()
                return
            default:
                return
            }
        }
    }

    /// One line saying why no connection can be accepted, with the numbers that explain it.
    private func logStarvation(_ code: Int32, clients: Int?) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let connected = clients.map { "\($0) clients connected" } ?? "clients connected"
        switch code {
        case EMFILE:
            log("cannot accept connections: this process has used all \(limit.rlim_cur) of its file descriptors ('ulimit -n') with \(connected); waiting for some to close (raise the limit to serve more)")
        case ENFILE:
            log("cannot accept connections: the system is out of file descriptors (\(connected)); waiting for some to close")
        default:
            log("cannot accept connections: \(SystemError("accept", code: code).reason) (\(connected)); trying again shortly")
        }
    }

    /// Out of descriptors: stop watching for 100 ms so the loop does not spin on a backlog it
    /// cannot accept from; clients wait in the backlog meanwhile.
    private func pauseAccepting() {
        let paused = state.withLock { state -> Bool in
            guard let token = state.token, !state.closed else { return false }
            loop.deregister(fd, token: token)
            state.token = nil
            return true
        }
        guard paused else { return }
        loop.schedule(after: .milliseconds(100)) { [self] in
            state.withLock { state in
                guard !state.closed, state.token == nil else { return }
                state.token = try? loop.register(fd, events: EPOLLIN.rawValue, handler: self)
            }
        }
    }

    /// Stops accepting and closes the socket; the channel of connections ends.
    /// The socket file is left for the owner to remove.
    public func close() {
        let wasOpen = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.closed = true
            if let token = state.token {
                loop.deregister(fd, token: token)
                state.token = nil
            }
            return true
        }
        guard wasOpen else { return }
        Glibc.close(fd)
        connections.close()
    }
}
