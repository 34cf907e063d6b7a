import Glibc
import Wire

/// Connects a shell to a core's socket and hands back a ``ShellSession``.
public enum SocketClient {
    /// Connects to `path`, retrying while the core's backlog is full, for at most `timeout`.
    /// Throws ``LinkError/unreachable(_:)`` when nothing listens there.
    public static func connect<State: Codable & Sendable, Action: Codable & Sendable>(
        to path: String,
        timeout: Duration = .seconds(5),
        limits: SocketConnection.Limits = .init(),
        state: State.Type = State.self,
        action: Action.Type = Action.self
    ) async throws(LinkError) -> ShellSession<State, Action> {
        do {
            try SocketPath.verifyDirectory(of: path)
        } catch {
            throw .untrusted(error.description)
        }
        let deadline = ContinuousClock.now + timeout
        let fd: Int32
        while true {
            let attempt: UnixSocket.ConnectAttempt
            do {
                attempt = try UnixSocket.connect(to: path)
            } catch {
                throw .unreachable(error.description)
            }
            switch attempt {
            case let .connected(connected):
                if let refusal = untrustedServer(connected, path: path) {
                    close(connected)
                    throw .untrusted(refusal)
                }
                fd = connected
            case .busy:
                guard ContinuousClock.now < deadline else {
                    throw .timedOut("the core at \(path) is too busy to accept a connection (waited \(timeout.readable))")
                }
                try? await Task.sleep(for: .milliseconds(10))
                continue
            case let .failed(error):
                let message = reachabilityMessage(path: path, error: error)
                throw error.code == ENOENT ? .noSocket(message) : .unreachable(message)
            }
            break
        }
        let connection = SocketConnection(fd: fd, limits: limits)
        let inbound = Chan<ServerMessage<State>>(capacity: 32)
        let outbound = Chan<ClientMessage<Action>>()
        Task {
            let failure = await FramePump.readLoop(
                from: connection, as: ServerMessage<State>.self,
                deliver: { await inbound.send($0) },
                // A newer core may send kinds of messages this client does not know: skip them.
                recover: { $0 is UnknownMessageType })
            switch failure {
            case let .undecodable(reason)?:
                await inbound.send(.error(ErrorMessage(.badFrame, "the core sent a frame that is not a valid message: \(reason)")))
            case let .framing(error)?:
                await inbound.send(.error(ErrorMessage(.badFrame, "the core's stream broke: \(error)")))
            case .connection?, nil:
                break
            }
            inbound.close()
            connection.close()
        }
        Task {
            _ = await FramePump.writeLoop(from: outbound, to: connection)
            await connection.drain(timeout: .seconds(2))
            connection.shutdownWriting()
        }
        return ShellSession(inbound: inbound, outbound: outbound)
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
