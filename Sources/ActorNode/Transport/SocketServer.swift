import Synchronization
import Wire

/// Serves a core over a listening socket: every accepted connection becomes a ``CoreSession``.
///
/// Protocol violations are answered here, before they reach the core: a frame that is too
/// large, or a payload that is not a valid message, gets an `error` frame and the connection
/// closes. An action that does not decode inside a sound envelope goes to the core as
/// ``SessionInput/invalidAction(_:)`` and is rejected there.
public final class SocketServer<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    public let listener: SocketListener
    private let live = Mutex<[ObjectIdentifier: Live]>([:])
    private let log: @Sendable (String) -> Void

    private struct Live {
        let connection: SocketConnection
        let outbox: Outbox<State>
    }

    public init(listener: SocketListener, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.listener = listener
        self.log = log
    }

    /// Connections open right now.
    public var connectionCount: Int {
        live.withLock { $0.count }
    }

    /// Accepts connections until the listener closes and runs `serve` for each one's session;
    /// returns when the listener is closed and every connection has ended.
    public func run(serve: @escaping @Sendable (CoreSession<State, Action>) async -> Void) async {
        await withDiscardingTaskGroup { group in
            for await connection in listener.connections {
                group.addTask { await self.handle(connection, serve: serve) }
            }
        }
    }

    /// Stops accepting, says bye to every client, and gives them `grace` to receive it before
    /// their connections are closed.
    public func shutdown(reason: String, grace: Duration = .seconds(2)) async {
        listener.close()
        let connections = live.withLock { Array($0.values) }
        for entry in connections {
            entry.outbox.finish(with: .bye(Bye(reason: reason)))
        }
        let deadline = ContinuousClock.now + grace
        while connectionCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for entry in live.withLock({ Array($0.values) }) {
            entry.connection.close()
        }
    }

    private func handle(_ connection: SocketConnection, serve: @escaping @Sendable (CoreSession<State, Action>) async -> Void) async {
        let inbound = Chan<SessionInput<Action>>(capacity: 64)
        let outbox = Outbox<State>()
        let key = ObjectIdentifier(connection)
        live.withLock { $0[key] = Live(connection: connection, outbox: outbox) }
        let peer = connection.peer.map { "pid \($0.pid)" } ?? "unknown peer"
        let session = CoreSession<State, Action>(inbound: inbound, outbox: outbox, peer: peer) {
            connection.close()
            inbound.close()
            outbox.finish()
        }
        await withDiscardingTaskGroup { group in
            group.addTask {
                let failure = await FramePump.readLoop(
                    from: connection, as: ClientMessage<Action>.self,
                    deliver: { await inbound.send(.message($0)) },
                    recover: { error in
                        guard let invalid = error as? InvalidActionError else { return false }
                        return await inbound.send(.invalidAction(invalid))
                    })
                // A violation goes to the core behind what came before it, so that the error
                // never overtakes the welcome, acks and rejects the core still owes.
                switch failure {
                case let .undecodable(reason)?:
                    self.log("\(peer): bad frame: \(PeerText.forLog(reason))")
                    await inbound.send(.violation(ErrorMessage(.badFrame, "a frame is not a valid message: \(reason)")))
                case let .framing(.payloadTooLarge(length, limit))?:
                    self.log("\(peer): frame of \(length) bytes refused")
                    await inbound.send(.violation(ErrorMessage(.frameTooLarge, "a frame announced \(length) bytes; the limit is \(limit)")))
                case let .framing(error)?:
                    self.log("\(peer): \(error)")
                    await inbound.send(.violation(ErrorMessage(.truncatedFrame, error.description)))
                case .connection?, nil:
                    break
                }
                inbound.close()
            }
            group.addTask {
                switch await FramePump.writeLoop(from: outbox, to: connection) {
                case let .encoding(reason)?:
                    self.log("\(peer): \(reason); closing the connection")
                    try? await connection.write(FramePump.errorFrame(.internalError, "the core could not send a message: \(reason)"))
                case let .connection(error)?:
                    self.log("\(peer): \(error)")
                case nil:
                    break
                }
                await connection.close(flushingFor: .seconds(2))
                inbound.close()
            }
            group.addTask {
                await serve(session)
            }
        }
        live.withLock { _ = $0.removeValue(forKey: key) }
    }
}
