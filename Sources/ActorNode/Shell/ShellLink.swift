import Wire

/// The shell's side of a session: says hello, numbers actions and matches their answers, and
/// keeps a copy of the core's state up to date from renditions.
///
/// Like the core it is written against channels and does not know whether a socket is behind
/// them. Actions can be pipelined: ``submit(_:)`` sends at once and returns the sequence number,
/// ``outcome(of:)`` waits for that action's answer.
///
/// Renditions are applied as they arrive, each at the cost of its patch alone, so the link
/// never falls behind the socket. ``events`` is conflated: a consumer that is slower than the
/// core gets the newest state each time it asks, never a backlog of old ones (principle 5, on
/// the shell's side), and the typed state is decoded only when someone asks for it.
///
/// Given a way to connect and a ``Reconnection`` window, the link rides through a core's
/// restart: when the connection is lost it says so, reconnects with backoff, takes the new
/// welcome's state, and sends every unanswered action again with its original sequence number,
/// which the core applies at most once.
public actor ShellLink<State: Codable & Sendable, Action: Codable & Sendable> {
    /// How to open a new session to the core.
    public typealias Connector = @Sendable () async throws(LinkError) -> ShellSession<State, Action>

    /// How long a link keeps trying to get back to a core it lost.
    public struct Reconnection: Sendable {
        /// Give up when the core has been unreachable this long.
        public var window: Duration
        public var initialDelay: Duration = .milliseconds(100)
        public var maximumDelay: Duration = .seconds(2)

        public init(window: Duration) {
            self.window = window
        }
    }

    public nonisolated let hello: Hello

    private var session: ShellSession<State, Action>?
    private let connector: Connector?
    private let reconnection: Reconnection?
    private var nextSeq: UInt64 = 1
    private var outcomes: [UInt64: OutcomeSlot] = [:]
    /// Actions not yet answered, by sequence number: sent again after a reconnection.
    private var unanswered: [UInt64: Action] = [:]
    private var ending: LinkError?
    private var endingIsOwn = false
    private var connected = false
    /// Bumped on every new session, so a receive loop of an old one stops quietly.
    private var generation = 0

    private var revision: UInt64 = 0
    /// Shells and watchers attached, as the core last said.
    public private(set) var shells = 0
    /// The typed state at `revision`, when it has been decoded since the last patch.
    private var decoded: State?
    /// The JSON of the state at `revision`, once a patch has needed it.
    private var document: JSONValue?
    private var opened = false

    private var deliveredRevision: UInt64?
    /// Events other than states (notices, connection changes) not yet handed to the consumer,
    /// each with the revision the link was at when it happened (the oldest dropped past 100).
    private var pendingEvents: [(event: LinkEvent<State>, after: UInt64)] = []
    private var endingDelivered = false
    private var eventWaiter: CheckedContinuation<Void, Never>?

    private enum OutcomeSlot {
        case waiting(CheckedContinuation<Result<ActionOutcome, LinkError>, Never>?)
        case answered(ActionOutcome)
    }

    /// A link over one session, without reconnection.
    public init(session: ShellSession<State, Action>, hello: Hello) {
        self.session = session
        self.hello = hello
        connector = nil
        reconnection = nil
    }

    /// A link that opens its sessions with `connector`, and reconnects within `reconnection`
    /// (nil: never).
    public init(hello: Hello, reconnection: Reconnection?, connector: @escaping Connector) {
        self.hello = hello
        self.connector = connector
        self.reconnection = reconnection
    }

    /// The state now and after every change, then the end of the link. Read by one consumer;
    /// a slow one skips to the newest state.
    public nonisolated var events: LinkEvents<State, Action> {
        LinkEvents(link: self)
    }

    /// The latest state the core reported, and its revision.
    public var current: (revision: UInt64, state: State)? {
        guard let state = try? currentState() else { return nil }
        return (revision, state)
    }

    /// Connects if needed, says hello and waits for the welcome. Afterwards ``events`` starts
    /// with the welcome's state. With a ``Reconnection``, a connection lost before the welcome
    /// (a core dying just then) is tried again within its window.
    public func open(timeout: Duration = .seconds(5)) async throws(LinkError) -> Welcome<State> {
        let deadline = ContinuousClock.now + max(timeout, reconnection?.window ?? timeout)
        var delay = reconnection?.initialDelay ?? .zero
        while true {
            do throws(LinkError) {
                let session: ShellSession<State, Action>
                if let existing = self.session {
                    session = existing
                } else if let connector {
                    session = try await connector()
                } else {
                    throw LinkError.closed("no way to reach the core")
                }
                let remaining = deadline - ContinuousClock.now
                let welcome = try await handshake(session, timeout: max(.milliseconds(100), min(timeout, remaining)))
                opened = true
                wakeConsumer()
                return welcome
            } catch {
                self.session = nil
                switch error {
                case .versionMismatch, .protocolError, .goodbye, .untrusted:
                    throw error
                case .closed, .timedOut, .unreachable, .noSocket:
                    guard let reconnection, connector != nil, ContinuousClock.now < deadline else { throw error }
                    try? await Task.sleep(for: delay)
                    delay = min(max(delay * 2, reconnection.initialDelay), reconnection.maximumDelay)
                }
            }
        }
    }

    /// Says hello on `session` and takes its welcome; starts receiving on it.
    private func handshake(_ session: ShellSession<State, Action>, timeout: Duration) async throws(LinkError) -> Welcome<State> {
        guard await session.outbound.send(.hello(hello)) else {
            throw .closed("the connection to the core closed before hello")
        }
        switch await session.inbound.receive(timeout: timeout) {
        case .timedOut:
            session.outbound.close()
            throw .timedOut("the core did not answer hello within \(timeout.readable)")
        case .ended:
            throw .closed("the core closed the connection before welcoming this client")
        case let .message(.welcome(welcome)):
            self.session = session
            connected = true
            generation += 1
            shells = welcome.shells
            revision = welcome.revision
            decoded = welcome.snapshot
            document = nil
            let current = generation
            Task { await self.receiveLoop(session, generation: current) }
            return welcome
        case let .message(.error(error)):
            session.outbound.close()
            throw error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error)
        case let .message(other):
            session.outbound.close()
            throw .protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with \(other.name) instead of welcome"))
        }
    }

    /// Sends an action without waiting for its answer; returns its sequence number. While the
    /// link reconnects, the action waits and is sent once it is back.
    public func submit(_ action: Action) throws(LinkError) -> UInt64 {
        if let ending { throw ending }
        let seq = nextSeq
        nextSeq += 1
        outcomes[seq] = .waiting(nil)
        unanswered[seq] = action
        if connected, let session {
            session.outbound.trySend(.action(ActionRequest(client: hello.client, seq: seq, action: action)))
        }
        return seq
    }

    /// Waits for the answer to the action sent as `seq`.
    public func outcome(of seq: UInt64) async throws(LinkError) -> ActionOutcome {
        switch outcomes[seq] {
        case let .answered(outcome)?:
            outcomes[seq] = nil
            return outcome
        case .waiting(nil)?:
            if let ending { throw ending }
            let result = await withCheckedContinuation { continuation in
                outcomes[seq] = .waiting(continuation)
            }
            return try result.get()
        case .waiting(.some)?:
            preconditionFailure("outcome(of: \(seq)) awaited twice")
        case nil:
            preconditionFailure("outcome(of: \(seq)) for an action this link did not submit")
        }
    }

    /// Sends an action and waits for its answer.
    public func send(_ action: Action) async throws(LinkError) -> ActionOutcome {
        let seq = try submit(action)
        return try await outcome(of: seq)
    }

    /// Says bye and closes the link.
    public func close() async {
        guard ending == nil else { return }
        if let session {
            session.outbound.trySend(.bye(Bye()))
            session.outbound.close()
        }
        end(.closed("this client closed the link"), own: true)
    }

    /// The next event for the consumer of ``events``: a notice or connection change whose state
    /// has been delivered, else the newest state if it is newer than the last one delivered,
    /// else the end, else nil once the end has been delivered. A notice never comes before the
    /// state it followed.
    public func nextEvent() async -> LinkEvent<State>? {
        while true {
            if let pending = pendingEvents.first, pending.after <= (deliveredRevision ?? 0) || !opened {
                pendingEvents.removeFirst()
                return pending.event
            }
            if opened, connected, deliveredRevision.map({ revision > $0 }) ?? true {
                do {
                    let state = try currentState()
                    deliveredRevision = revision
                    return .state(revision: revision, state)
                } catch {
                    end(.protocolError(ErrorMessage(.badFrame, "the state at revision \(revision) does not decode: \(error)")))
                }
            }
            if let pending = pendingEvents.first {
                pendingEvents.removeFirst()
                return pending.event
            }
            if let ending, !endingDelivered {
                endingDelivered = true
                return .ended(endingIsOwn ? nil : ending)
            }
            if endingDelivered || Task.isCancelled { return nil }
            await withTaskCancellationHandler {
                await withCheckedContinuation { eventWaiter = $0 }
            } onCancel: {
                Task { await self.wakeConsumer() }
            }
        }
    }

    private func post(_ event: LinkEvent<State>) {
        pendingEvents.append((event, revision))
        if pendingEvents.count > 100 { pendingEvents.removeFirst() }
        wakeConsumer()
    }

    private func wakeConsumer() {
        eventWaiter?.resume()
        eventWaiter = nil
    }

    private func currentState() throws -> State {
        if let decoded { return decoded }
        guard let document else { throw LinkError.closed("no state yet") }
        let state = try document.decode(as: State.self)
        decoded = state
        return state
    }

    private func receiveLoop(_ session: ShellSession<State, Action>, generation: Int) async {
        var lost = "the connection to the core was lost"
        var goodbye = false
        while let message = await session.inbound.receive() {
            guard ending == nil, generation == self.generation else { return }
            switch message {
            case let .ack(ack):
                answer(ack.seq, .applied(revision: ack.revision))
            case let .reject(reject):
                answer(reject.seq, .rejected(reject))
            case let .rendition(rendition):
                do throws(LinkError) {
                    try apply(rendition)
                    wakeConsumer()
                } catch {
                    session.outbound.close()
                    end(error)
                    return
                }
            case let .notice(notice):
                post(.notice(notice.text))
            case let .presence(presence):
                shells = presence.shells
                post(.presence(shells: presence.shells))
            case let .error(error):
                // A refusal of this client (version, protocol) is final; falling behind is not.
                guard error.code == ErrorCode.tooSlow.rawValue, reconnection != nil else {
                    end(error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error))
                    return
                }
                lost = "the core let this client go: \(error.message)"
            case let .bye(bye):
                lost = LinkError.goodbye(bye.reason).description
                goodbye = true
            case .welcome:
                session.outbound.close()
                end(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
                return
            }
        }
        guard ending == nil, generation == self.generation else { return }
        connected = false
        guard let reconnection, connector != nil else {
            end(goodbye ? .goodbye(nil) : .closed(lost))
            return
        }
        // After a goodbye the core was usually stopped for good; say "reconnecting" only once
        // the first attempt shows that it may come back.
        if !goodbye { post(.reconnecting(lost)) }
        await reconnect(within: reconnection, after: lost, goodbye: goodbye)
    }

    /// Tries to get back to a core, with growing delays, until the window closes.
    private func reconnect(within reconnection: Reconnection, after reason: String, goodbye: Bool) async {
        guard let connector else { return }
        let deadline = ContinuousClock.now + reconnection.window
        var delay = reconnection.initialDelay
        var announced = !goodbye
        func announce() {
            if !announced { post(.reconnecting(reason)) }
            announced = true
        }
        while ending == nil {
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, reconnection.maximumDelay)
            let remaining = deadline - ContinuousClock.now
            do {
                let session = try await connector()
                _ = try await handshake(session, timeout: max(.milliseconds(100), min(remaining, .seconds(5))))
                // The welcome's state is shown if it is newer, as usual; if it is older (a
                // machine crash took back what was not yet on disk), it is shown all the same.
                if let delivered = deliveredRevision, revision < delivered { deliveredRevision = nil }
                announce()
                post(.reconnected(revision: revision))
                for seq in unanswered.keys.sorted() {
                    session.outbound.trySend(.action(ActionRequest(client: hello.client, seq: seq, action: unanswered[seq]!)))
                }
                return
            } catch {
                if case .noSocket = error, goodbye {
                    // The core said goodbye and its socket is gone: it was stopped for good.
                    end(.goodbye(nil))
                    return
                }
                switch error {
                case .versionMismatch, .untrusted:
                    // Not the core we lost, nor one to talk to: stop here, nothing is resent.
                    end(error)
                    return
                default:
                    break
                }
                announce()
                guard ContinuousClock.now < deadline else {
                    end(.closed("\(reason), and it was not back within \(reconnection.window.readable) (\(error))"))
                    return
                }
            }
        }
    }

    private func apply(_ rendition: Rendition<State>) throws(LinkError) {
        switch rendition.content {
        case let .snapshot(snapshot):
            guard rendition.revision > revision else {
                throw .protocolError(ErrorMessage(.badFrame, "snapshot for revision \(rendition.revision) after revision \(revision)"))
            }
            decoded = snapshot
            document = nil
        case let .patch(patch):
            guard rendition.revision == revision + 1 else {
                throw .protocolError(ErrorMessage(.badFrame, "patch for revision \(rendition.revision) does not follow revision \(revision)"))
            }
            do {
                var json = try document ?? JSONValue(encoding: currentState())
                document = nil
                try json.applyInPlace(patch)
                document = json
                decoded = nil
            } catch {
                throw .protocolError(ErrorMessage(.badFrame, "the patch for revision \(rendition.revision) does not apply: \(error)"))
            }
        }
        revision = rendition.revision
    }

    private func answer(_ seq: UInt64, _ outcome: ActionOutcome) {
        unanswered[seq] = nil
        switch outcomes[seq] {
        case let .waiting(continuation?)?:
            outcomes[seq] = nil
            continuation.resume(returning: .success(outcome))
        case .waiting(nil)?:
            outcomes[seq] = .answered(outcome)
        case .answered?, nil:
            break
        }
    }

    private func end(_ error: LinkError, own: Bool = false) {
        guard ending == nil else { return }
        ending = error
        endingIsOwn = own
        connected = false
        for (seq, slot) in outcomes {
            if case let .waiting(continuation?) = slot {
                continuation.resume(returning: .failure(error))
                outcomes[seq] = nil
            }
        }
        wakeConsumer()
    }
}

/// The events of a ``ShellLink`` as an async sequence: `for await event in link.events`.
public struct LinkEvents<State: Codable & Sendable, Action: Codable & Sendable>: AsyncSequence, Sendable {
    let link: ShellLink<State, Action>

    public struct AsyncIterator: AsyncIteratorProtocol {
        let link: ShellLink<State, Action>

        public mutating func next() async -> LinkEvent<State>? {
            await link.nextEvent()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(link: link)
    }
}
