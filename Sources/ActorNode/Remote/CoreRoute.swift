/// Where a client finds its core: a Unix socket on this machine, or a core on another machine
/// through ssh (``SSHDialer``). Either way a connection is a stream socket to the core, so the
/// client machine and its drivers do not know the difference.
package enum CoreRoute: Sendable {
    /// The core's socket on this machine.
    case local(path: String)
    /// A core on another machine, through the user's ssh and the app's `bridge` there.
    case ssh(SSHDialer)

    /// Opens a connection (the socket and peer checks of ``ServerConnector``, or an ssh and its
    /// bridge), on a thread that may block.
    /// - Parameter timeout: how long to wait out a full backlog, or for ssh and the bridge.
    /// - Returns: the connected socket, non-blocking and close-on-exec; the caller owns it.
    package func connectBlocking(timeout: Duration) throws(LinkError) -> Int32 {
        switch self {
        case let .local(path):
            do throws(ServerConnector.Failure) {
                return try ServerConnector.connectBlocking(to: path, timeout: timeout)
            } catch {
                throw BlockingClient.linkError(error)
            }
        case let .ssh(dialer):
            return try dialer.dial(timeout: timeout)
        }
    }

    /// Opens a session for a client on the event loop (``ShellLink``).
    /// - Parameter timeout: as for ``connectBlocking(timeout:)``.
    package func connect(timeout: Duration) async throws(LinkError) -> ShellSession {
        switch self {
        case let .local(path):
            return try await SocketClient.connect(to: path, timeout: timeout)
        case let .ssh(dialer):
            let fd = try await dialer.dial(timeout: timeout)
            return SocketClient.session(over: SocketConnection(fd: fd))
        }
    }

    /// The host the core is on, when it is another machine.
    package var host: String? {
        if case let .ssh(dialer) = self { return dialer.route.host }
        return nil
    }

    /// For people: the socket's path, or `HOST` (`HOST:PATH` with `--socket`).
    package var description: String {
        switch self {
        case let .local(path):
            return path
        case let .ssh(dialer):
            return PeerText.escaped(dialer.route.host) + (dialer.route.socket.map { ":" + $0 } ?? "")
        }
    }
}
