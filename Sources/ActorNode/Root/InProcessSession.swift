import Glibc
import Wire

/// A shell session with a core's engine in the same process, over a socketpair: what Root does
/// when no socket path is needed (tests, embedding). The engine serves the pair's one end as it
/// serves any client; the session speaks the protocol on the other.
package enum InProcessSession {
    /// Connects a new session to `engine`.
    /// - Parameters:
    ///   - engine: the core's engine.
    ///   - peer: who the engine's log lines name as the client.
    ///   - limits: the limits of the shell's side of the connection.
    /// - Returns: the shell's side of the session.
    package static func attach<State, Action, Environment>(
        to engine: CoreEngine<State, Action, Environment>, peer: String = "in-process",
        limits: SocketConnection.Limits = .init()
    ) async throws(SystemError) -> ShellSession {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SystemError("socketpair")
        }
        await engine.attach(fd: fds[0], peer: peer)
        return SocketClient.session(over: SocketConnection(fd: fds[1], limits: limits))
    }
}
