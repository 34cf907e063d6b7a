import Synchronization
import Wire

/// Serves a core over a listening socket: every accepted connection becomes a ``CoreSession``.
///
/// Protocol violations are answered here, before they reach the core: a frame that is too
/// large, or a payload that is not a valid message, gets an `error` frame and the connection
/// closes. An action that does not decode inside a sound envelope goes to the core as
/// ``SessionInput/invalidAction(_:)`` and is rejected there.
public final class CoreServer<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
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
        listener.countClients { [weak self] in self?.connectionCount ?? 0 }
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
        let inbound = Chan<BudgetedInbound<Action>.Entry>(capacity: 64)
        let outbox = Outbox<State>()
        let key = ObjectIdentifier(connection)
        live.withLock { $0[key] = Live(connection: connection, outbox: outbox) }
        let peer = connection.peer.map { "pid \($0.pid)" } ?? "unknown peer"
        let session = CoreSession<State, Action>(inbound: BudgetedInbound(source: inbound, connection: connection), outbox: outbox, peer: peer) {
            connection.close()
            inbound.close()
            outbox.finish()
        }
        await withDiscardingTaskGroup { group in
            group.addTask {
                // The first frame (the hello) has a small limit of its own.
                let framesRead = Atomic<Int>(0)
                let failure = await FramePump.readLoop(
                    from: connection, as: ClientMessage<Action>.self,
                    deliver: { message, size in
                        framesRead.add(1, ordering: .relaxed)
                        return await inbound.send(.init(input: .message(message), size: size))
                    },
                    recover: { error, size in
                        framesRead.add(1, ordering: .relaxed)
                        guard let invalid = error as? InvalidActionError else { return false }
                        return await inbound.send(.init(input: .invalidAction(invalid), size: size))
                    })
                // A violation goes to the core behind what came before it, so that the error
                // never overtakes the welcome, acks and rejects the core still owes.
                switch failure {
                case let .undecodable(reason)?:
                    self.log("\(peer): bad frame: \(PeerText.forLog(reason))")
                    await inbound.send(.init(input: .violation(ErrorMessage(.badFrame, "a frame is not a valid message: \(reason)"))))
                case let .framing(.payloadTooLarge(length, limit))?:
                    let when = framesRead.load(ordering: .relaxed) == 0 ? " before hello" : ""
                    self.log("\(peer): frame of \(length) bytes refused\(when)")
                    await inbound.send(.init(input: .violation(ErrorMessage(.frameTooLarge, "a frame announced \(length) bytes; the limit\(when) is \(limit)"))))
                case let .connection(.overBudget(held, limit))?:
                    self.log("\(peer): disconnected: it held \(held) bytes of unprocessed input when all clients together passed \(limit) bytes")
                    await inbound.send(.init(input: .violation(ErrorMessage(.tooLarge, "this client held \(held) bytes of input the core had not processed, and all clients together passed the core's limit of \(limit) bytes; send fewer or smaller frames at a time, and read the answers"))))
                case let .framing(error)?:
                    self.log("\(peer): \(error)")
                    await inbound.send(.init(input: .violation(ErrorMessage(.truncatedFrame, error.description))))
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

/// A session's input as the core takes it, with the input budget settled on the way: a frame
/// counts against its connection's share until the core comes back for the next input (it has
/// finished with this one by then).
final class BudgetedInbound<Action: Codable & Sendable>: Receiving {
    struct Entry: Sendable {
        let input: SessionInput<Action>
        /// The frame's size on the wire, prefix included; 0 for what the server made up.
        var size = 0
    }

    let source: Chan<Entry>
    let connection: SocketConnection
    private let taken = Mutex<Int>(0)

    init(source: Chan<Entry>, connection: SocketConnection) {
        self.source = source
        self.connection = connection
    }

    func receive() async -> SessionInput<Action>? {
        let finished = taken.withLock { size in
            defer { size = 0 }
            return size
        }
        if finished > 0 { connection.releaseBudget(bytes: finished) }
        guard let entry = await source.receive() else { return nil }
        taken.withLock { $0 = entry.size }
        return entry.input
    }
}
