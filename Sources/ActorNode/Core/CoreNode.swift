import FoundationEssentials
import Glibc
import Wire

/// The Core: the one actor that owns the state, applies actions one at a time, and tells every
/// attached client what changed, in revision order.
///
/// It is written against sessions (a channel in, an outbox out) and knows nothing of sockets:
/// the same core serves shells in the same process and across processes. It knows nothing of
/// the app either: the state, the actions and the reducer are its parameters.
public actor CoreNode<State: Codable & Sendable & Diffable, Action: Codable & Sendable, Environment: Sendable> {
    /// Identifies this run of the core; sent in every welcome.
    public nonisolated let instanceID: String
    /// How long a new client has to send its hello.
    public nonisolated let handshakeTimeout: Duration

    private var state: State
    private var revision: UInt64
    private let reducer: Reducer<State, Action, Environment>
    private let environment: Environment
    private let log: @Sendable (String) -> Void

    private var attached: [Int: Attached] = [:]
    private var nextSessionNumber = 1

    private struct Attached {
        let hello: Hello
        let session: CoreSession<State, Action>
    }

    public init(
        state: State,
        revision: UInt64 = 0,
        reducer: Reducer<State, Action, Environment>,
        environment: Environment,
        instanceID: String = UUID().uuidString.lowercased(),
        handshakeTimeout: Duration = .seconds(10),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.state = state
        self.revision = revision
        self.reducer = reducer
        self.environment = environment
        self.instanceID = instanceID
        self.handshakeTimeout = handshakeTimeout
        self.log = log
    }

    /// The current state and its revision.
    public var current: (revision: UInt64, state: State) {
        (revision, state)
    }

    /// Clients attached that receive renditions.
    public var shellCount: Int {
        attached.values.filter { $0.hello.role.receivesRenditions }.count
    }

    /// Serves one client until it leaves: the hello, then its actions in order.
    /// Returns when the session has ended; the session's outbox is finished by then.
    public nonisolated func serve(_ session: CoreSession<State, Action>) async {
        let hello: Hello
        switch await session.inbound.receive(timeout: handshakeTimeout) {
        case .timedOut:
            session.outbox.finish(with: .error(ErrorMessage(.handshakeTimeout, "no hello within \(handshakeTimeout); send hello first")))
            return
        case .ended:
            session.outbox.finish()
            return
        case let .message(.message(.hello(received))):
            hello = received
        case .message:
            session.outbox.finish(with: .error(ErrorMessage(.helloRequired, "the first message must be hello")))
            return
        }
        guard hello.protocolVersion == ProtocolVersion.current else {
            session.outbox.finish(with: .error(ErrorMessage(
                .versionMismatch,
                "this core speaks protocol \(ProtocolVersion.current) and the client speaks \(hello.protocolVersion); use matching versions of the core and the client",
                protocolVersion: ProtocolVersion.current)))
            return
        }
        let number = await attach(session, hello: hello)
        loop: while let input = await session.inbound.receive() {
            switch input {
            case let .message(.action(request)):
                await apply(request, from: number)
            case let .invalidAction(invalid):
                await reply(.reject(Reject(seq: invalid.seq, code: Rejection.invalidAction(invalid.reason).code, message: invalid.reason)), to: number)
            case .message(.hello):
                session.outbox.finish(with: .error(ErrorMessage(.unexpectedMessage, "hello was already sent on this connection")))
                break loop
            case .message(.bye):
                break loop
            }
        }
        await detach(number)
    }

    private func attach(_ session: CoreSession<State, Action>, hello: Hello) -> Int {
        let number = nextSessionNumber
        nextSessionNumber += 1
        attached[number] = Attached(hello: hello, session: session)
        let welcome = Welcome(core: instanceID, pid: getpid(), shells: shellCount, revision: revision, snapshot: state)
        session.outbox.send(.welcome(welcome))
        if hello.role.receivesRenditions {
            log("attached \(hello.role.rawValue) '\(hello.name)' (client \(hello.client), \(session.peer))")
        }
        return number
    }

    private func detach(_ number: Int) {
        guard let gone = attached.removeValue(forKey: number) else { return }
        gone.session.outbox.finish()
        if gone.hello.role.receivesRenditions {
            log("detached \(gone.hello.role.rawValue) '\(gone.hello.name)' (client \(gone.hello.client))")
        }
    }

    private var hasRenditionReceivers: Bool {
        attached.values.contains { $0.hello.role.receivesRenditions }
    }

    /// Applies one action. The reducer changes the state in place (a copy per action would cost
    /// as much as the state is large); by its contract it throws before changing anything. The
    /// previous state is kept only to diff against, and in debug builds to check that contract.
    private func apply(_ request: ActionRequest<Action>, from number: Int) {
        // A client let go for falling behind may still have actions in flight: drop them.
        guard attached[number] != nil else { return }
        var previous: State? = hasRenditionReceivers ? state : nil
        #if DEBUG
        previous = previous ?? state
        #endif
        do {
            try reducer(&state, request.action, environment)
        } catch {
            if let previous, state != previous {
                assertionFailure("a reducer changed the state, then rejected \(request.action): \(error)")
                state = previous
            }
            reply(.reject(Reject(seq: request.seq, code: error.code, message: error.message)), to: number)
            return
        }
        revision += 1
        if let previous, hasRenditionReceivers {
            broadcast(from: previous)
        }
        reply(.ack(Ack(seq: request.seq, revision: revision)), to: number)
    }

    /// Queues an answer for one client, letting it go if it has stopped reading.
    private func reply(_ message: ServerMessage<State>, to number: Int) {
        guard let client = attached[number] else { return }
        if client.session.outbox.send(message) == .overflow {
            letGo(number)
        }
    }

    /// Forgets a client that fell too far behind. Its outbox now holds only a `too_slow` error;
    /// it gets a moment to read it before the connection is cut.
    private func letGo(_ number: Int) {
        guard let client = attached.removeValue(forKey: number) else { return }
        log("disconnecting \(client.hello.role.rawValue) '\(client.hello.name)' (client \(client.hello.client)): it fell too far behind")
        let session = client.session
        Task {
            try? await Task.sleep(for: .seconds(2))
            session.disconnect()
        }
    }

    /// Sends the change to every client that receives renditions: a patch found by diffing the
    /// typed states, which costs a comparison of the state plus the encoding of what changed.
    private func broadcast(from previous: State) {
        let rendition: Rendition<State>
        let snapshot = Rendition(revision: revision, content: .snapshot(state))
        do {
            rendition = Rendition(revision: revision, content: .patch(try state.patch(from: previous)))
        } catch {
            log("could not diff revision \(revision) (\(error)); sending a snapshot")
            rendition = snapshot
        }
        for (number, receiver) in attached where receiver.hello.role.receivesRenditions {
            if receiver.session.outbox.offer(rendition, snapshot: { snapshot }) == .overflow {
                letGo(number)
            }
        }
    }
}
