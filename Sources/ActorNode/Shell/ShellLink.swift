import Wire

/// A shell's link to the core for code that awaits: it drives a ``ClientMachine`` (which holds
/// every rule of the protocol: hello, numbering, answers, the mirror, reconnecting and
/// resending) over ``ShellSession``s, and hands out its news as ``LinkEvent``s with the state
/// typed.
///
/// Actions can be pipelined: ``submit(_:)`` sends at once and returns the sequence number,
/// ``outcome(of:)`` waits for that action's answer. ``events`` is conflated: a consumer slower
/// than the core gets the newest state each time it asks, never a backlog of old ones
/// (principle 5, on the shell's side), and the typed state is decoded only when someone asks.
///
/// Given a way to connect and a ``Reconnection`` window, the link rides through a core's
/// restart, as the machine's rules say.
package actor ShellLink<State: Codable & Sendable, Action: Codable & Sendable> {
    /// How to open a new session to the core.
    package typealias Connector = @Sendable () async throws(LinkError) -> ShellSession

    /// How long a link keeps trying to get back to a core it lost (the machine's rule).
    package typealias Reconnection = ClientMachine.Reconnection

    package nonisolated let hello: Hello

    private var machine: ClientMachine?
    private var session: ShellSession?
    /// A session given at the start, used for the first connection.
    private var firstSession: ShellSession?
    private let connector: Connector?
    private let reconnection: Reconnection?
    /// Bumped for every new session, so that the reader of an old one stops quietly.
    private var generation = 0
    /// Bumped for every timer armed, so that only the newest one ticks.
    private var timerGeneration = 0

    private var outcomes: [UInt64: OutcomeSlot] = [:]
    private var opening: CheckedContinuation<Void, Never>?

    /// Shells and watchers attached, as the core last said.
    package var shells: Int { machine?.shells ?? 0 }
    /// The typed state at `decodedRevision`, when it has been decoded since the last change.
    private var decoded: State?
    private var decodedRevision: UInt64?

    private var deliveredRevision: UInt64?
    /// Events other than states (notices, connection changes) not yet handed to the consumer,
    /// each with the revision the link was at when it happened (the oldest dropped past 100).
    private var pendingEvents: [(event: LinkEvent<State>, after: UInt64)] = []
    private var ended = false
    /// Whether the note that the whole state had to be asked for was said (once a process).
    private var saidResync = false
    /// How the link ended (nil: this client closed it).
    private var endError: LinkError?
    private var endingIsOwn = false
    private var endingDelivered = false
    private var eventWaiter: CheckedContinuation<Void, Never>?

    private enum OutcomeSlot {
        case waiting(CheckedContinuation<Result<ActionOutcome, LinkError>, Never>?)
        case answered(ActionOutcome)
    }

    /// A link over one session, without reconnection.
    /// - Parameters:
    ///   - session: the connection.
    ///   - hello: what to say.
    package init(session: ShellSession, hello: Hello) {
        self.hello = hello
        firstSession = session
        connector = nil
        reconnection = nil
    }

    /// A link that opens its sessions with `connector`, and reconnects within `reconnection`
    /// (nil: never).
    /// - Parameters:
    ///   - hello: what to say on every connection.
    ///   - reconnection: how long a lost core is tried again.
    ///   - connector: how to open a session.
    package init(hello: Hello, reconnection: Reconnection?, connector: @escaping Connector) {
        self.hello = hello
        self.connector = connector
        self.reconnection = reconnection
    }

    /// The state now and after every change, then the end of the link. Read by one consumer;
    /// a slow one skips to the newest state.
    package nonisolated var events: LinkEvents<State, Action> {
        LinkEvents(link: self)
    }

    /// The latest state the core reported, and its revision.
    package var current: (revision: UInt64, state: State)? {
        guard let machine, machine.welcome != nil, let state = try? currentState() else { return nil }
        return (machine.revision, state)
    }

    /// Connects if needed, says hello and waits for the welcome. Afterwards ``events`` starts
    /// with the welcome's state. With a ``Reconnection``, a connection lost before the welcome
    /// (a core dying just then) is tried again within its window.
    /// - Parameter timeout: how long the core has to answer a hello.
    package func open(timeout: Duration = .seconds(5)) async throws(LinkError) -> Welcome<State> {
        guard machine == nil else { throw .closed("the link was opened already") }
        var machine = ClientMachine(
            hello: hello, timeout: timeout,
            reconnection: reconnection, mirrors: true)
        let outputs = machine.start(now: .now)
        self.machine = machine
        perform(outputs)
        while !(self.machine?.isOpen ?? false), !ended {
            await withCheckedContinuation { opening = $0 }
        }
        guard let machine = self.machine, machine.isOpen, let welcome = machine.welcome else {
            throw endError ?? .closed("the link closed before the welcome")
        }
        let state: State
        do {
            state = try currentState()
        } catch {
            throw ClientMachine.undecodableState(revision: welcome.revision, error)
        }
        return Welcome(protocolVersion: ProtocolVersion.current, core: welcome.core, pid: welcome.pid, shells: welcome.shells, revision: welcome.revision, snapshot: state)
    }

    /// Sends an action without waiting for its answer; returns its sequence number. While the
    /// link reconnects, the action waits and is sent once it is back.
    /// - Parameter action: the action.
    package func submit(_ action: Action) throws(LinkError) -> UInt64 {
        let json: [UInt8]
        do {
            json = try WireJSON.encode(action)
        } catch {
            throw .protocolError(ErrorMessage(.internalError, "could not encode the action: \(error)"))
        }
        guard var machine else { throw .closed("the link is not open") }
        let (seq, outputs) = try machine.submit(json)
        self.machine = machine
        outcomes[seq] = .waiting(nil)
        perform(outputs)
        return seq
    }

    /// Waits for the answer to the action sent as `seq`.
    /// - Parameter seq: what ``submit(_:)`` returned.
    package func outcome(of seq: UInt64) async throws(LinkError) -> ActionOutcome {
        switch outcomes[seq] {
        case let .answered(outcome)?:
            outcomes[seq] = nil
            return outcome
        case .waiting(nil)?:
            if ended { throw endError ?? .closed("this client closed the link") }
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
    /// - Parameter action: the action.
    package func send(_ action: Action) async throws(LinkError) -> ActionOutcome {
        let seq = try submit(action)
        return try await outcome(of: seq)
    }

    /// Says bye and closes the link.
    package func close() async {
        guard var machine, !ended else { return }
        let outputs = machine.close()
        self.machine = machine
        endingIsOwn = true
        perform(outputs)
    }

    /// The next event for the consumer of ``events``: a notice or connection change whose state
    /// has been delivered, else the newest state if it is newer than the last one delivered,
    /// else the end, else nil once the end has been delivered. A notice never comes before the
    /// state it followed.
    package func nextEvent() async -> LinkEvent<State>? {
        while true {
            let opened = machine?.welcome != nil
            if let pending = pendingEvents.first, pending.after <= (deliveredRevision ?? 0) || !opened {
                pendingEvents.removeFirst()
                return pending.event
            }
            if let machine, machine.isOpen, deliveredRevision.map({ machine.revision > $0 }) ?? true {
                do {
                    let state = try currentState()
                    deliveredRevision = machine.revision
                    return .state(revision: machine.revision, state)
                } catch {
                    fail(ClientMachine.undecodableState(revision: machine.revision, error))
                }
            }
            if let pending = pendingEvents.first {
                pendingEvents.removeFirst()
                return pending.event
            }
            if ended, !endingDelivered {
                endingDelivered = true
                return .ended(endingIsOwn ? nil : endError)
            }
            if endingDelivered || Task.isCancelled { return nil }
            await withTaskCancellationHandler {
                await withCheckedContinuation { eventWaiter = $0 }
            } onCancel: {
                Task { await self.wakeConsumer() }
            }
        }
    }

    // MARK: Driving the machine

    private func perform(_ outputs: [ClientOutput]) {
        for output in outputs {
            switch output {
            case .connect:
                connect()
            case let .write(bytes):
                session?.outbound.trySend(bytes)
            case .disconnect:
                session?.outbound.close()
                session = nil
                generation += 1
            case let .event(event):
                take(event)
            }
        }
        armTimer()
    }

    private func take(_ event: ClientEvent) {
        let revision = machine?.revision ?? 0
        switch event {
        case .welcomed:
            opening?.resume()
            opening = nil
        case .changed:
            wakeConsumer()
        case let .answered(seq, outcome):
            answer(seq, outcome)
        case let .resyncing(revision, reason):
            if !saidResync, let machine {
                saidResync = true
                StandardStreams.writeNow(2, Array("\(machine.hello.name): \(ClientEvent.resyncNote(revision: revision, reason: reason))\n".utf8))
            }
        case let .notice(text):
            post(.notice(text), after: revision)
        case let .presence(shells):
            post(.presence(shells: shells), after: revision)
        case let .reconnecting(reason):
            post(.reconnecting(reason), after: revision)
        case let .reconnected(revision):
            // The welcome's state is shown if it is newer, as usual; if it is older (a machine
            // crash took back what was not yet on disk), it is shown all the same.
            if let delivered = deliveredRevision, revision < delivered { deliveredRevision = nil }
            post(.reconnected(revision: revision), after: revision)
        case .replied, .entry:
            // Shells ask nothing about the past.
            break
        case let .ended(ending):
            guard !ended else { return }
            ended = true
            endError = ending
            let error = ending ?? .closed("this client closed the link")
            for (seq, slot) in outcomes {
                if case let .waiting(continuation?) = slot {
                    continuation.resume(returning: .failure(error))
                    outcomes[seq] = nil
                }
            }
            opening?.resume()
            opening = nil
            wakeConsumer()
        }
    }

    private func connect() {
        let current = generation
        if let first = firstSession {
            firstSession = nil
            attach(first)
            return
        }
        guard let connector else {
            feed { $0.connectFailed(.closed("no way to reach the core"), now: .now) }
            return
        }
        Task {
            do throws(LinkError) {
                let session = try await connector()
                self.connectionMade(session, generation: current)
            } catch {
                self.feed { $0.connectFailed(error, now: .now) }
            }
        }
    }

    private func connectionMade(_ session: ShellSession, generation: Int) {
        guard generation == self.generation, !ended else {
            session.outbound.close()
            return
        }
        attach(session)
    }

    /// Takes `session` as the current connection and starts reading it.
    private func attach(_ session: ShellSession) {
        generation += 1
        self.session = session
        let current = generation
        Task { await self.read(session, generation: current) }
        feed { $0.connected(now: .now) }
    }

    private func read(_ session: ShellSession, generation: Int) async {
        while let input = await session.inbound.receive() {
            guard generation == self.generation else { return }
            switch input {
            case let .frame(payload):
                feed { $0.received(frame: payload, now: .now) }
            case let .broken(error):
                feed { $0.streamBroke(error, now: .now) }
            }
        }
        guard generation == self.generation else { return }
        feed { $0.connectionEnded(now: .now) }
    }

    /// Hands something to the machine and does what it says.
    private func feed(_ step: (inout ClientMachine) -> [ClientOutput]) {
        guard var machine else { return }
        let outputs = step(&machine)
        self.machine = machine
        perform(outputs)
    }

    /// Makes sure ``tick()`` runs at the machine's next deadline.
    private func armTimer() {
        guard let deadline = machine?.deadline else { return }
        timerGeneration += 1
        let current = timerGeneration
        Task {
            try? await Task.sleep(for: MonotonicClock.Instant.now.duration(to: deadline))
            self.tick(generation: current)
        }
    }

    private func tick(generation: Int) {
        guard generation == timerGeneration else { return }
        feed { $0.tick(now: .now) }
    }

    /// Ends the link for a reason found on this side (a state that does not decode).
    private func fail(_ error: LinkError) {
        guard !ended else { return }
        // The machine's session is over as far as this link is concerned.
        session?.outbound.close()
        session = nil
        generation += 1
        take(.ended(error))
    }

    private func post(_ event: LinkEvent<State>, after revision: UInt64) {
        pendingEvents.append((event, revision))
        if pendingEvents.count > 100 { pendingEvents.removeFirst() }
        wakeConsumer()
    }

    private func wakeConsumer() {
        eventWaiter?.resume()
        eventWaiter = nil
    }

    private func currentState() throws -> State {
        guard let machine else { throw LinkError.closed("no state yet") }
        if let decoded, decodedRevision == machine.revision { return decoded }
        let state = try (machine.document ?? .null).decode(as: State.self)
        decoded = state
        decodedRevision = machine.revision
        return state
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
}

/// The events of a ``ShellLink`` as an async sequence: `for await event in link.events`.
package struct LinkEvents<State: Codable & Sendable, Action: Codable & Sendable>: AsyncSequence, Sendable {
    let link: ShellLink<State, Action>

    package struct AsyncIterator: AsyncIteratorProtocol {
        let link: ShellLink<State, Action>

        package mutating func next() async -> LinkEvent<State>? {
            await link.nextEvent()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(link: link)
    }
}
