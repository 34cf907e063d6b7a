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
public actor ShellLink<State: Codable & Sendable, Action: Codable & Sendable> {
    public nonisolated let hello: Hello

    private let session: ShellSession<State, Action>
    private var nextSeq: UInt64 = 1
    private var outcomes: [UInt64: OutcomeSlot] = [:]
    private var ending: LinkError?
    private var endingIsOwn = false

    private var revision: UInt64 = 0
    /// The typed state at `revision`, when it has been decoded since the last patch.
    private var decoded: State?
    /// The JSON of the state at `revision`, once a patch has needed it.
    private var document: JSONValue?
    private var opened = false

    private var deliveredRevision: UInt64?
    /// Notices not yet handed to the consumer, each with the revision the link was at when it
    /// arrived (the oldest are dropped past 100).
    private var notices: [(text: String, after: UInt64)] = []
    private var endingDelivered = false
    private var eventWaiter: CheckedContinuation<Void, Never>?

    private enum OutcomeSlot {
        case waiting(CheckedContinuation<Result<ActionOutcome, LinkError>, Never>?)
        case answered(ActionOutcome)
    }

    public init(session: ShellSession<State, Action>, hello: Hello) {
        self.session = session
        self.hello = hello
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

    /// Says hello and waits for the welcome. Afterwards ``events`` starts with the welcome's state.
    public func open(timeout: Duration = .seconds(5)) async throws(LinkError) -> Welcome<State> {
        guard await session.outbound.send(.hello(hello)) else {
            throw .closed("the connection to the core closed before hello")
        }
        switch await session.inbound.receive(timeout: timeout) {
        case .timedOut:
            session.outbound.close()
            throw .timedOut("the core did not answer hello within \(timeout)")
        case .ended:
            throw .closed("the core closed the connection before welcoming this client")
        case let .message(.welcome(welcome)):
            revision = welcome.revision
            decoded = welcome.snapshot
            opened = true
            wakeConsumer()
            Task { await self.receiveLoop() }
            return welcome
        case let .message(.error(error)):
            session.outbound.close()
            throw error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error)
        case let .message(other):
            session.outbound.close()
            throw .protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with \(Self.name(of: other)) instead of welcome"))
        }
    }

    /// Sends an action without waiting for its answer; returns its sequence number.
    public func submit(_ action: Action) throws(LinkError) -> UInt64 {
        if let ending { throw ending }
        let seq = nextSeq
        nextSeq += 1
        outcomes[seq] = .waiting(nil)
        guard session.outbound.trySend(.action(ActionRequest(client: hello.client, seq: seq, action: action))) else {
            outcomes[seq] = nil
            throw .closed("the connection to the core is closed")
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
        session.outbound.trySend(.bye(Bye()))
        session.outbound.close()
        end(.closed("this client closed the link"), own: true)
    }

    /// The next event for the consumer of ``events``: a notice whose state has been delivered,
    /// else the newest state if it is newer than the last one delivered, else the end, else nil
    /// once the end has been delivered. A notice never comes before the state it followed.
    public func nextEvent() async -> LinkEvent<State>? {
        while true {
            if let notice = notices.first, notice.after <= (deliveredRevision ?? 0) || !opened {
                notices.removeFirst()
                return .notice(notice.text)
            }
            if opened, deliveredRevision.map({ revision > $0 }) ?? true {
                do {
                    let state = try currentState()
                    deliveredRevision = revision
                    return .state(revision: revision, state)
                } catch {
                    end(.protocolError(ErrorMessage(.badFrame, "the state at revision \(revision) does not decode: \(error)")))
                }
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

    private func receiveLoop() async {
        while let message = await session.inbound.receive() {
            guard ending == nil else { break }
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
                }
            case let .notice(notice):
                notices.append((notice.text, revision))
                if notices.count > 100 { notices.removeFirst() }
                wakeConsumer()
            case let .error(error):
                end(error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error))
            case let .bye(bye):
                end(.goodbye(bye.reason))
            case .welcome:
                session.outbound.close()
                end(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
            }
        }
        end(.closed("the connection to the core was lost"))
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
        for (seq, slot) in outcomes {
            if case let .waiting(continuation?) = slot {
                continuation.resume(returning: .failure(error))
                outcomes[seq] = nil
            }
        }
        wakeConsumer()
    }

    private static func name(of message: ServerMessage<State>) -> String {
        switch message {
        case .welcome: return "welcome"
        case .ack: return "ack"
        case .reject: return "reject"
        case .rendition: return "rendition"
        case .notice: return "notice"
        case .error: return "error"
        case .bye: return "bye"
        }
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
