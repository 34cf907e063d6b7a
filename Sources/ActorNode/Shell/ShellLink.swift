import Wire

/// The shell's side of a session: says hello, numbers actions and matches their answers, and
/// keeps a copy of the core's state up to date from renditions.
///
/// Like the core it is written against channels and does not know whether a socket is behind
/// them. Actions can be pipelined: ``submit(_:)`` sends at once and returns the sequence number,
/// ``outcome(of:)`` waits for that action's answer.
public actor ShellLink<State: Codable & Sendable, Action: Codable & Sendable> {
    /// The state after every change, and the end of the link. Read by one consumer.
    public nonisolated let events = Chan<LinkEvent<State>>()
    public nonisolated let hello: Hello

    private let session: ShellSession<State, Action>
    private var nextSeq: UInt64 = 1
    private var outcomes: [UInt64: OutcomeSlot] = [:]
    private var ending: LinkError?
    private var revision: UInt64 = 0
    private var state: State?
    /// The JSON of `state`, made when the first patch arrives.
    private var stateJSON: JSONValue?

    private enum OutcomeSlot {
        case waiting(CheckedContinuation<Result<ActionOutcome, LinkError>, Never>?)
        case answered(ActionOutcome)
    }

    public init(session: ShellSession<State, Action>, hello: Hello) {
        self.session = session
        self.hello = hello
    }

    /// The latest state the core reported, and its revision.
    public var current: (revision: UInt64, state: State)? {
        state.map { (revision, $0) }
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
            state = welcome.snapshot
            events.trySend(.state(revision: welcome.revision, welcome.snapshot))
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
        end(.closed("this client closed the link"), byClient: true)
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
                } catch {
                    session.outbound.close()
                    end(error)
                }
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
            state = snapshot
            stateJSON = nil
        case let .patch(patch):
            guard rendition.revision == revision + 1, let state else {
                throw .protocolError(ErrorMessage(.badFrame, "patch for revision \(rendition.revision) does not follow revision \(revision)"))
            }
            do {
                var json = try stateJSON ?? JSONValue(encoding: state)
                try json.apply(patch)
                self.state = try json.decode(as: State.self)
                stateJSON = json
            } catch {
                throw .protocolError(ErrorMessage(.badFrame, "the patch for revision \(rendition.revision) does not apply: \(error)"))
            }
        }
        revision = rendition.revision
        events.trySend(.state(revision: revision, state!))
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

    private func end(_ error: LinkError, byClient: Bool = false) {
        guard ending == nil else { return }
        ending = error
        for (seq, slot) in outcomes {
            if case let .waiting(continuation?) = slot {
                continuation.resume(returning: .failure(error))
                outcomes[seq] = nil
            }
        }
        events.trySend(.ended(byClient ? nil : error))
        events.close()
    }

    private static func name(of message: ServerMessage<State>) -> String {
        switch message {
        case .welcome: return "welcome"
        case .ack: return "ack"
        case .reject: return "reject"
        case .rendition: return "rendition"
        case .error: return "error"
        case .bye: return "bye"
        }
    }
}
