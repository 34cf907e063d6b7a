import FoundationEssentials
import Glibc
import Wire

/// The Core as a server of sessions: a ``Store`` (the single writer: state, reducer, effects)
/// and the clients attached to it. It welcomes each client with the whole state, applies its
/// actions through the store and answers each with an ack or a reject, and tells every shell and
/// watcher what changed, in revision order, whether the change came from a client or an effect.
///
/// It is written against sessions (a channel in, an outbox out) and knows nothing of sockets,
/// and nothing of the app: the state, actions, reducer and environment are its parameters.
public final class CoreNode<State: Codable & Sendable & Diffable, Action: Codable & Sendable, Environment: Sendable>: Sendable {
    /// Identifies this run of the core; sent in every welcome.
    public let instanceID: String
    /// How long a new client has to send its hello.
    public let handshakeTimeout: Duration
    /// The single writer.
    public let store: Store<State, Action, Environment>

    private let registry: SessionRegistry<State, Action>
    private let admits: @Sendable (Action) -> Rejection?
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - admits: refuses actions clients may not send (an app's internal actions): return a
    ///     rejection for those, nil for the rest.
    ///   - trace: log every action and what it changed.
    public init(
        state: State,
        revision: UInt64 = 0,
        reducer: Reducer<State, Action, Environment>,
        environment: Environment,
        time: any TimeSource = SystemTime(),
        instanceID: String = UUID().uuidString.lowercased(),
        handshakeTimeout: Duration = .seconds(10),
        trace: Bool = false,
        admits: @escaping @Sendable (Action) -> Rejection? = { _ in nil },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        let registry = SessionRegistry<State, Action>(log: log)
        self.registry = registry
        self.instanceID = instanceID
        self.handshakeTimeout = handshakeTimeout
        self.admits = admits
        self.log = log
        store = Store(
            state: state, revision: revision, reducer: reducer, environment: environment, time: time,
            wantsPrevious: { trace || registry.hasReceivers },
            observe: { event in
                Self.observe(event, registry: registry, trace: trace, log: log)
            })
    }

    /// The current state and its revision.
    public var current: (revision: UInt64, state: State) {
        get async { await store.current }
    }

    /// Clients attached that receive renditions.
    public var shellCount: Int { registry.shellCount }

    /// Applies an action of the core's own (not a client's), e.g. one that resumes timers when
    /// the core starts.
    @discardableResult
    public func send(_ action: Action) async -> Sent {
        await store.send(action, from: .outside("the core"))
    }

    /// Tells every shell and watcher something that is not part of the state.
    public func notify(_ text: String) {
        registry.broadcast(.notice(Notice(text: text)))
    }

    /// Serves one client until it leaves: the hello, then its actions in order.
    /// Returns when the session has ended; the session's outbox is finished by then.
    public func serve(_ session: CoreSession<State, Action>) async {
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
            // A client let go for falling behind may still have actions in flight: drop them.
            guard registry.contains(number) else { break }
            switch input {
            case let .message(.action(request)):
                await apply(request, from: number, client: hello.client)
            case let .invalidAction(invalid):
                registry.reply(.reject(Reject(seq: invalid.seq, code: Rejection.invalidAction(invalid.reason).code, message: invalid.reason)), to: number)
            case .message(.hello):
                session.outbox.finish(with: .error(ErrorMessage(.unexpectedMessage, "hello was already sent on this connection")))
                break loop
            case .message(.bye):
                break loop
            }
        }
        if registry.remove(number) != nil, hello.role.receivesRenditions {
            log("detached \(hello.role.rawValue) '\(hello.name)' (client \(hello.client))")
        }
        session.outbox.finish()
    }

    /// Registers the client and queues its welcome inside the store, so that the welcome's
    /// revision is followed by exactly the renditions after it.
    private func attach(_ session: CoreSession<State, Action>, hello: Hello) async -> Int {
        let registry = self.registry
        let instanceID = self.instanceID
        let number = await store.read { revision, state in
            let number = registry.add(session, hello: hello)
            let welcome = Welcome(core: instanceID, pid: getpid(), shells: registry.shellCount, revision: revision, snapshot: state)
            session.outbox.send(.welcome(welcome))
            return number
        }
        if hello.role.receivesRenditions {
            log("attached \(hello.role.rawValue) '\(hello.name)' (client \(hello.client), \(session.peer))")
        }
        return number
    }

    private func apply(_ request: ActionRequest<Action>, from number: Int, client: String) async {
        if let refusal = admits(request.action) {
            registry.reply(.reject(Reject(seq: request.seq, code: refusal.code, message: refusal.message)), to: number)
            return
        }
        switch await store.send(request.action, from: .outside("client \(client)")) {
        case let .applied(revision, _):
            registry.reply(.ack(Ack(seq: request.seq, revision: revision)), to: number)
        case let .rejected(rejection):
            registry.reply(.reject(Reject(seq: request.seq, code: rejection.code, message: rejection.message)), to: number)
        }
    }

    /// The store's observer: runs inside the store, once per action, in revision order.
    private static func observe(
        _ event: StoreEvent<State, Action>, registry: SessionRegistry<State, Action>,
        trace: Bool, log: @Sendable (String) -> Void
    ) {
        switch event {
        case let .applied(action, origin, revision, previous, state):
            if trace {
                log(TraceLine.applied(action: action, origin: origin, revision: revision, previous: previous, state: state))
            }
            guard let previous, registry.hasReceivers else { return }
            let snapshot = Rendition(revision: revision, content: .snapshot(state))
            let rendition: Rendition<State>
            do {
                rendition = Rendition(revision: revision, content: .patch(try state.patch(from: previous)))
            } catch {
                log("could not diff revision \(revision) (\(error)); sending a snapshot")
                rendition = snapshot
            }
            registry.broadcast(rendition, snapshot: snapshot)
        case let .rejected(action, origin, rejection):
            if trace {
                log(TraceLine.rejected(action: action, origin: origin, rejection: rejection))
            } else if origin == .effect {
                log("an effect's action was rejected: \(rejection.message) (\(rejection.code))")
            }
        }
    }
}
