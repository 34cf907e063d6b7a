import FoundationEssentials
import Glibc
import Wire

/// The Core as a server of sessions: a ``Store`` (the single writer: state, reducer, effects)
/// and the clients attached to it. It welcomes each client with the whole state, applies its
/// actions through the store and answers each with an ack or a reject, and tells every shell and
/// watcher what changed, in revision order, whether the change came from a client or an effect.
///
/// Every transition goes through a ``CommitPipeline`` (a journal, in the daemon) before anyone
/// hears of it: renditions, welcomes, acks and rejects are released in order once what they
/// speak of is committed. A client's (id, seq) is applied at most once; a resend is answered
/// with the original ack.
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
    private let commit: any CommitPipeline<State, Action>
    private let admits: @Sendable (Action) -> Rejection?
    private let trace: Bool
    private let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - admits: refuses actions clients may not send (an app's internal actions): return a
    ///     rejection for those, nil for the rest.
    ///   - trace: log every action and what it changed.
    public init(
        state: State,
        revision: UInt64 = 0,
        ledger: ClientLedger = ClientLedger(),
        commit: any CommitPipeline<State, Action> = ImmediateCommit(),
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
        self.commit = commit
        self.trace = trace
        self.instanceID = instanceID
        self.handshakeTimeout = handshakeTimeout
        self.admits = admits
        self.log = log
        store = Store(
            state: state, revision: revision, ledger: ledger, reducer: reducer, environment: environment, time: time,
            wantsPrevious: { trace || registry.hasReceivers },
            observe: { event in
                Self.observe(event, registry: registry, commit: commit, trace: trace, log: log)
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

    /// Tells every shell and watcher something that is not part of the state, after every
    /// transition handed to the pipeline so far (so a notice follows the state it is about).
    public func notify(_ text: String) {
        let registry = self.registry
        commit.then { registry.broadcast(.notice(Notice(text: text))) }
    }

    /// Serves one client until it leaves: the hello, then its actions in order.
    /// Returns when the session has ended; the session's outbox is finished by then.
    public func serve(_ session: CoreSession<State, Action>) async {
        let hello: Hello
        switch await session.inbound.receive(timeout: handshakeTimeout) {
        case .timedOut:
            session.outbox.finish(with: .error(ErrorMessage(.handshakeTimeout, "no hello within \(handshakeTimeout.readable); send hello first")))
            return
        case .ended:
            session.outbox.finish()
            return
        case let .message(.message(.hello(received))):
            hello = received
        case let .message(.violation(error)):
            session.outbox.finish(with: .error(error))
            return
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
        let registry = self.registry
        let outbox = session.outbox
        loop: while true {
            // A client that does not read its answers is not read from: it never has more than
            // ``Outbox/Limits/unansweredLimit`` actions unanswered (fewer than the ledger
            // remembers, so every resend is answered as the original was).
            await outbox.waitForAnswerRoom()
            guard let input = await session.inbound.receive() else { break }
            // A client let go for falling behind may still have actions in flight: drop them.
            guard !registry.isLetGo(number) else { break }
            switch input {
            case let .message(.action(request)):
                outbox.expectAnswer()
                await apply(request, from: number, client: hello.client)
            case let .invalidAction(invalid):
                outbox.expectAnswer()
                let reject = Reject(seq: invalid.seq, code: Rejection.invalidAction(invalid.reason).code, message: invalid.reason)
                if trace {
                    log("trace refused from client \(PeerText.forLog(hello.client)) #\(invalid.seq): an action that does not decode: \(PeerText.forLog(invalid.reason)) (invalid_action)")
                }
                commit.then { registry.reply(.reject(reject), to: number) }
            case .message(.hello):
                // Queued behind the answers owed so far, like every error.
                commit.then { outbox.finish(with: .error(ErrorMessage(.unexpectedMessage, "hello was already sent on this connection"))) }
                break loop
            case let .violation(error):
                commit.then { outbox.finish(with: .error(error)) }
                break loop
            case .message(.bye):
                break loop
            }
        }
        let log = self.log
        commit.then {
            if registry.remove(number) != nil, hello.role.receivesRenditions {
                log("detached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)))")
                registry.announcePresence(except: nil)
            }
            session.outbox.finish()
        }
    }

    /// Takes the state inside the store and queues the welcome behind every transition handed
    /// to the pipeline so far: the client is registered and welcomed once the welcome's revision
    /// is committed, and then receives exactly the renditions after it.
    private func attach(_ session: CoreSession<State, Action>, hello: Hello) async -> Int {
        let registry = self.registry
        let instanceID = self.instanceID
        let commit = self.commit
        let number = registry.reserve()
        await store.read { revision, state in
            commit.then {
                registry.add(number, session, hello: hello)
                let welcome = Welcome(core: instanceID, pid: getpid(), shells: registry.shellCount, revision: revision, snapshot: state)
                session.outbox.send(.welcome(welcome))
                if hello.role.receivesRenditions { registry.announcePresence(except: number) }
            }
        }
        if hello.role.receivesRenditions {
            log("attached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)), \(session.peer))")
        }
        return number
    }

    /// Applies a client's action (at most once per (client, seq)) and queues its answer behind
    /// the transition, so the ack goes out once the action is committed.
    private func apply(_ request: ActionRequest<Action>, from number: Int, client: String) async {
        let registry = self.registry
        let answer: ServerMessage<State>
        if let refusal = admits(request.action) {
            answer = .reject(Reject(seq: request.seq, code: refusal.code, message: refusal.message))
            if trace {
                log(TraceLine.rejected(action: request.action, origin: .client(id: client, seq: request.seq), rejection: refusal))
            }
        } else {
            let origin = ActionOrigin.client(id: client, seq: request.seq)
            switch await store.send(request.action, from: origin) {
            case let .applied(revision, _):
                answer = .ack(Ack(seq: request.seq, revision: revision))
            case let .duplicate(revision):
                answer = .ack(Ack(seq: request.seq, revision: revision))
                if trace { log(TraceLine.duplicate(action: request.action, origin: origin, revision: revision)) }
            case let .rejected(rejection):
                answer = .reject(Reject(seq: request.seq, code: rejection.code, message: rejection.message))
                // The store traces what its reducers refuse; a sequence it no longer
                // remembers never reaches them.
                if trace, rejection.code == "stale_sequence" {
                    log(TraceLine.rejected(action: request.action, origin: origin, rejection: rejection))
                }
            }
        }
        commit.then { registry.reply(answer, to: number) }
    }

    /// The store's observer: runs inside the store, once per action, in revision order. It hands
    /// the transition to the pipeline; the rendition is made and sent once it is committed.
    private static func observe(
        _ event: StoreEvent<State, Action>, registry: SessionRegistry<State, Action>,
        commit: any CommitPipeline<State, Action>, trace: Bool, log: @escaping @Sendable (String) -> Void
    ) {
        switch event {
        case let .applied(transition):
            if trace {
                log(TraceLine.applied(
                    action: transition.action, origin: transition.origin, revision: transition.revision,
                    previous: transition.previous, state: transition.state))
            }
            commit.commit(transition) {
                guard registry.hasReceivers else { return }
                broadcast(transition, to: registry, log: log)
            }
        case let .rejected(action, origin, rejection):
            if trace {
                log(TraceLine.rejected(action: action, origin: origin, rejection: rejection))
            } else if origin == .effect {
                log("an effect's action was rejected: \(PeerText.forLog(rejection.message)) (\(PeerText.forLog(rejection.code)))")
            }
        }
    }

    /// Tells every shell and watcher about a committed transition: a patch from the previous
    /// state, or the whole state when the previous one was not kept (no one was listening then).
    private static func broadcast(_ transition: Transition<State, Action>, to registry: SessionRegistry<State, Action>, log: @Sendable (String) -> Void) {
        let snapshot = Rendition(revision: transition.revision, content: .snapshot(transition.state))
        guard let previous = transition.previous else {
            registry.broadcast(snapshot, snapshot: snapshot)
            return
        }
        let rendition: Rendition<State>
        do {
            rendition = Rendition(revision: transition.revision, content: .patch(try transition.state.patch(from: previous)))
        } catch {
            log("could not diff revision \(transition.revision) (\(error)); sending a snapshot")
            rendition = snapshot
        }
        registry.broadcast(rendition, snapshot: snapshot)
    }
}
