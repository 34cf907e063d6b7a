import Wire

/// Connects a shell to a core's socket and hands back a ``ShellSession``: frames in and out,
/// pumped on their own tasks.
public enum SocketClient {
    /// Connects to `path` (see ``ServerConnector/connect(to:timeout:limits:loop:)`` for the checks
    /// made first), retrying while the core's backlog is full, for at most `timeout`.
    /// - Parameters:
    ///   - path: the core's socket.
    ///   - timeout: how long to wait out a full backlog.
    ///   - limits: the limits of the connection.
    ///   - state: the app's state type.
    ///   - action: the app's action type.
    public static func connect<State: Codable & Sendable, Action: Codable & Sendable>(
        to path: String,
        timeout: Duration = .seconds(5),
        limits: SocketConnection.Limits = .init(),
        state: State.Type = State.self,
        action: Action.Type = Action.self
    ) async throws(LinkError) -> ShellSession<State, Action> {
        let connection: SocketConnection
        do {
            connection = try await ServerConnector.connect(to: path, timeout: timeout, limits: limits)
        } catch {
            switch error {
            case let .noSocket(reason): throw .noSocket(reason)
            case let .unreachable(reason), let .badPath(reason): throw .unreachable(reason)
            case let .timedOut(reason): throw .timedOut(reason)
            case let .untrusted(reason): throw .untrusted(reason)
            }
        }
        return session(over: connection)
    }

    /// A session over a connection made some other way (one end of a socketpair, say).
    /// - Parameters:
    ///   - connection: the connection; the session closes it when the core's side ends.
    ///   - state: the app's state type.
    ///   - action: the app's action type.
    public static func session<State: Codable & Sendable, Action: Codable & Sendable>(
        over connection: SocketConnection, state: State.Type = State.self, action: Action.Type = Action.self
    ) -> ShellSession<State, Action> {
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
}
