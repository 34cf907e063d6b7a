import Wire

/// Connects a shell to a core's socket and hands back a ``ShellSession``: frames in and bytes
/// out, pumped on their own tasks.
package enum SocketClient {
    /// Connects to `path` (see ``ServerConnector/connect(to:timeout:limits:loop:)`` for the checks
    /// made first), retrying while the core's backlog is full, for at most `timeout`.
    /// - Parameters:
    ///   - path: the core's socket.
    ///   - timeout: how long to wait out a full backlog.
    ///   - limits: the limits of the connection.
    package static func connect(
        to path: String, timeout: Duration = .seconds(5), limits: SocketConnection.Limits = .init()
    ) async throws(LinkError) -> ShellSession {
        let connection: SocketConnection
        do {
            connection = try await ServerConnector.connect(to: path, timeout: timeout, limits: limits)
        } catch {
            throw BlockingClient.linkError(error)
        }
        return session(over: connection)
    }

    /// A session over a connection made some other way (one end of a socketpair, say).
    /// - Parameter connection: the connection; the session closes it when the core's side ends.
    package static func session(over connection: SocketConnection) -> ShellSession {
        let inbound = Chan<SessionInput>(capacity: 32)
        let outbound = Chan<[UInt8]>()
        Task {
            while true {
                let frame: [UInt8]?
                do throws(ConnectionError) {
                    frame = try await connection.readFrame()
                } catch {
                    if case let .frame(frameError) = error { await inbound.send(.broken(frameError)) }
                    break
                }
                guard let frame, await inbound.send(.frame(frame)) else { break }
            }
            inbound.close()
            connection.close()
        }
        Task {
            while let bytes = await outbound.receive() {
                do {
                    try await connection.write(bytes)
                } catch {
                    break
                }
            }
            await connection.drain(timeout: .seconds(2))
            connection.shutdownWriting()
        }
        return ShellSession(inbound: inbound, outbound: outbound)
    }
}
