import CSystemShims
import FoundationEssentials
import Glibc
import Synchronization
import Wire

/// The core as one state machine on one thread: an actor whose executor is an ``EventLoop``, so
/// that reading a client's socket, applying its actions, journaling them and writing the answers
/// all happen on the loop's thread, without a hop per action.
///
/// One turn of the loop: every ready socket is read and its whole frames handled at once (a
/// hello is welcomed, an action applied through the ``StoreKernel`` and appended to the journal
/// in memory); effects' actions and notices come in as jobs of the actor. At the end of the turn
/// the journal writes everything the turn applied in one write (and one `fdatasync` under
/// `--fsync always`: group commit), and only then is the turn's output released, in order:
/// welcomes, renditions (each encoded once, the same bytes for every shell), acks and rejects,
/// notices, errors. Several frames for one client go out in one write.
///
/// Slow clients never slow anyone: a shell with too much unwritten output stops getting
/// renditions and gets a snapshot of the newest state once it has caught up; a client that does
/// not read its answers is not read from past ``Limits/unansweredLimit``. Protocol violations get
/// an error frame after what the client is owed, then the connection closes.
public actor CoreEngine<State: Codable & Sendable & Diffable, Action: Codable & Sendable, Environment: Sendable> {
    /// How much a client may make the core hold.
    public struct Limits: Sendable {
        /// The largest frame accepted once a client has said hello.
        public var maximumPayloadLength = Frame.defaultMaximumPayloadLength
        /// The largest first frame (the hello).
        public var maximumFirstPayloadLength = 64 << 10
        /// How long a new connection has to say hello.
        public var handshakeTimeout: Duration = .seconds(10)
        /// Bytes of partial frames all clients together may hold.
        public var inputBudget = InputBudget.Limits.default
        /// The kernel's send buffer of each client socket: kept small, so that a client that
        /// stops reading is noticed early and its renditions coalesce.
        public var kernelSendBuffer = 32 << 10
        /// Renditions are held back from a shell while this much waits to be written...
        public var renditionHighWater = 64 << 10
        /// ...until less than this waits; it then gets a snapshot of the newest state.
        public var renditionLowWater = 16 << 10
        /// The most answers that may wait to be written to one client before it is not read
        /// from (fewer than the ledger remembers per client).
        public var unansweredLimit = 512
        /// The most bytes that may wait to be written to one client before it is not read from.
        public var outputReadLimit = 1 << 20
        /// A client that leaves this much unread (answers, welcomes, notices) is let go.
        public var outputHardLimit = 64 << 20
        /// Messages other than renditions (notices) held for a lagging shell before it is let
        /// go with `too_slow`.
        public var heldMessageLimit = 4096
        /// How long a client ending its session gets to read what it is owed.
        public var closingGrace: Duration = .seconds(2)
        /// The most clients connected at once; more wait in the socket's backlog. The host sets
        /// it from the limit on open files, less a reserve (``DescriptorLimit``).
        public var maximumClients = Int.max

        public init() {}
    }

    public nonisolated let loop: EventLoop
    /// Identifies this run of the core; sent in every welcome.
    public nonisolated let instanceID: String
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    private var kernel: StoreKernel<State, Action, Environment>
    private let runtime: EffectRuntime<Action>
    private let journal: JournalWriter<State>?
    private let limits: Limits
    private let admits: @Sendable (Action) -> Rejection?
    /// Inputs that crashed the core before: refused, not applied.
    private let quarantine: Quarantine
    private let trace: Bool
    private let log: @Sendable (String) -> Void
    private let journalFailed: @Sendable (JournalFailure) -> Void

    private var clients = ClientTable()
    private var nextNumber = 1
    /// Welcomed clients that receive renditions, by number.
    private var receivers: Set<Int> = []
    /// The turn's output, released in order once the turn's journal records are written.
    private var pending: [Pending] = []
    /// Clients with something to write, or to look at again, at the end of the turn.
    private var touched: Set<Int> = []
    /// Clients whose frames wait in their decoder until they read some of their answers.
    private var heldBack: Set<Int> = []
    private var listener: (fd: Int32, token: UInt64, path: String)?
    private var acceptPaused = false
    private var acceptStarved = false
    private var budgetTotal = 0
    private var stopped = false
    private var failed = false
    /// The state's JSON at a revision, encoded once for every welcome and snapshot of it.
    private var stateCache: (revision: UInt64, json: [UInt8])?
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private nonisolated let hook = Mutex<UInt64?>(nil)
    /// Where sockets are read into: one buffer, used on the loop's thread only.
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    /// - Parameters:
    ///   - state: the state to start from (what recovery found).
    ///   - revision: its revision.
    ///   - ledger: the client ledger at that revision.
    ///   - journal: where applied actions are written before anyone hears of them (nil: nowhere,
    ///     for tests and embedding).
    ///   - reducer: the app's reducer.
    ///   - environment: its environment.
    ///   - time: the clock for effects and for each action's "now".
    ///   - limits: what a client may make the core hold.
    ///   - trace: log every action and what it changed.
    ///   - admits: refuses the actions clients may not send.
    ///   - quarantine: inputs that crashed the core before, refused from now on.
    ///   - loop: the event loop the engine runs on.
    ///   - log: where log lines go.
    ///   - journalFailed: told when the journal cannot be written (the engine then stops
    ///     answering; the host stops the process).
    init(
        state: State, revision: UInt64 = 0, ledger: ClientLedger = ClientLedger(),
        journal: JournalWriter<State>?,
        reducer: Reducer<State, Action, Environment>, environment: Environment,
        time: any TimeSource = SystemTime(), limits: Limits = Limits(), trace: Bool = false,
        admits: @escaping @Sendable (Action) -> Rejection? = { _ in nil },
        quarantine: Quarantine = Quarantine(),
        loop: EventLoop = .shared,
        log: @escaping @Sendable (String) -> Void = { _ in },
        journalFailed: @escaping @Sendable (JournalFailure) -> Void = { _ in }
    ) {
        self.loop = loop
        instanceID = RandomIdentifier.uuid()
        kernel = StoreKernel(state: state, revision: revision, ledger: ledger, reducer: reducer, environment: environment, time: time)
        self.journal = journal
        self.limits = limits
        self.admits = admits
        self.quarantine = quarantine
        self.trace = trace
        self.log = log
        self.journalFailed = journalFailed
        let engine = WeakEngine<State, Action, Environment>()
        runtime = EffectRuntime(time: time) { action in await engine.value?.applyEffectAction(action) }
        engine.value = self
        let id = loop.onEndOfTurn { [weak self] in
            self?.assumeIsolated { $0.endTurn() }
        }
        hook.withLock { $0 = id }
    }

    isolated deinit {
        if let id = hook.withLock({ $0 }) { loop.removeEndOfTurnHook(id) }
        runtime.cancelAll()
        if let listener { loop.deregister(listener.fd, token: listener.token) }
        for client in clients.values {
            if let token = client.token { loop.deregister(client.fd, token: token) }
            close(client.fd)
            if case let .awaitingHello(timer?) = client.phase { loop.cancel(timer) }
        }
    }

    /// An engine for tests and embedding: no journal.
    /// - Parameters:
    ///   - state: the state to start from.
    ///   - reducer: the app's reducer.
    ///   - environment: its environment.
    ///   - limits: what a client may make the core hold.
    ///   - loop: the event loop to run on.
    public init(
        state: State, reducer: Reducer<State, Action, Environment>, environment: Environment,
        limits: Limits = Limits(), admits: @escaping @Sendable (Action) -> Rejection? = { _ in nil }, loop: EventLoop = .shared
    ) {
        self.init(state: state, journal: nil, reducer: reducer, environment: environment, limits: limits, admits: admits, loop: loop)
    }

    // MARK: What the host and tests call

    /// The current state and its revision.
    public var current: (revision: UInt64, state: State) { (kernel.revision, kernel.state) }

    /// Clients attached that receive renditions.
    public var shellCount: Int { receivers.count }

    /// Clients connected.
    public var clientCount: Int { clients.count }

    /// Starts accepting connections on a bound, listening, non-blocking socket.
    /// - Parameters:
    ///   - fd: the socket.
    ///   - path: its path, for log lines.
    ///
    /// The socket stays its owner's: the engine stops watching it when it stops, and never
    /// closes it.
    public func listen(fd: Int32, path: String) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let port = EnginePort(number: 0) { [weak self] _, _ in
            self?.assumeIsolated { $0.acceptReady() }
        }
        let token = try loop.register(fd, events: EPOLLIN.rawValue, handler: port)
        listener = (fd, token, path)
    }

    /// Serves a connected, non-blocking socket as a client (one end of a socketpair, say).
    /// - Parameters:
    ///   - fd: the socket; the engine closes it.
    ///   - peer: who is at the other end, for log lines.
    public func attach(fd: Int32, peer: String = "in-process") {
        addClient(fd: fd, peer: peer)
    }

    /// Applies an action of the core's own (not a client's), e.g. one that resumes timers when
    /// the core starts.
    /// - Parameter action: the action.
    public func send(_ action: Action) {
        applyOwn(action, from: .outside("the core"))
        touchTurn()
    }

    /// Tells every shell and watcher something that is not part of the state, after every
    /// change made so far.
    /// - Parameter text: the notice.
    public nonisolated func notify(_ text: String) {
        // In order with the notices and the actions sent before it.
        loop.execute { [weak self] in self?.assumeIsolated { $0.broadcastNotice(text) } }
    }

    /// Stops: no new connections, everything applied written and forced to disk, `bye` to every
    /// client; returns once every client has read it and gone, or after the closing grace.
    /// - Parameter reason: the bye's reason.
    public func stop(reason: String) async {
        guard !stopped else { return }
        stopped = true
        if let listener {
            loop.deregister(listener.fd, token: listener.token)
            self.listener = nil
        }
        // What was applied is on disk before anyone hears the core is going.
        do {
            try journal?.flush { snapshotContent() }
        } catch {
            fail(error)
        }
        let bye = ServerMessage<State>.bye(Bye(reason: reason)).frame()
        for number in clients.keys.sorted() {
            guard let client = clients[number], !client.finishing else { continue }
            if client.hello != nil { pending.append(.frame(client: number, bytes: bye, isAnswer: false)) }
            finish(number)
        }
        touchTurn()
        await withCheckedContinuation { continuation in
            if clients.isEmpty {
                continuation.resume()
            } else {
                stopWaiters.append(continuation)
            }
        }
        runtime.cancelAll()
    }

    /// Waits for a snapshot being written, then closes the journal.
    public func closeJournal() async {
        await journal?.close()
    }

    // MARK: Accepting

    private func acceptReady() {
        guard let listener else { return }
        while true {
            guard clients.count < limits.maximumClients else {
                // Not the last descriptors: they are the journal's and the runtime's.
                if !acceptStarved {
                    acceptStarved = true
                    logStarvation(EMFILE)
                }
                pauseAccepting()
                return
            }
            let accepted = cama_accept_nonblocking(listener.fd)
            if accepted >= 0 {
                if acceptStarved {
                    acceptStarved = false
                    log("accepting connections again (\(clients.count) clients connected)")
                }
                if let peer = UnixSocket.peerCredentials(accepted), peer.uid != getuid(), peer.uid != 0 {
                    // The socket is new and its buffer empty: this small write cannot block.
                    let refusal = ServerMessage<JSONValue>.error(ErrorMessage(.permissionDenied, "this core serves user \(getuid()) only")).frame()
                    _ = refusal.withUnsafeBytes { Glibc.send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(accepted)
                    log("refused a connection from pid \(peer.pid), user \(peer.uid)")
                    continue
                }
                let peer = UnixSocket.peerCredentials(accepted).map { "pid \($0.pid)" } ?? "unknown peer"
                addClient(fd: accepted, peer: peer)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                let code = errno
                if !acceptStarved {
                    acceptStarved = true
                    logStarvation(code)
                }
                pauseAccepting()
                return
            default:
                return
            }
        }
    }

    /// Out of descriptors (or at the most clients it takes): stop watching the listener for
    /// 100 ms, so the loop does not spin on a backlog it cannot accept from; clients wait in the
    /// backlog meanwhile.
    private func pauseAccepting() {
        guard let listener, !acceptPaused else { return }
        acceptPaused = true
        loop.modify(listener.fd, token: listener.token, events: 0)
        loop.schedule(after: .milliseconds(100)) { [weak self] in
            self?.assumeIsolated { engine in
                engine.acceptPaused = false
                guard let listener = engine.listener else { return }
                engine.loop.modify(listener.fd, token: listener.token, events: EPOLLIN.rawValue)
            }
        }
    }

    private func logStarvation(_ code: Int32) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        switch code {
        case EMFILE:
            log("cannot accept connections: \(clients.count) clients connected use what this process may have of its \(limit.rlim_cur) file descriptors ('ulimit -n'), less \(DescriptorLimit.reserve) it keeps for itself; waiting for some to close (raise the limit to serve more)")
        case ENFILE:
            log("cannot accept connections: the system is out of file descriptors (\(clients.count) clients connected); waiting for some to close")
        default:
            log("cannot accept connections: \(SystemError("accept", code: code).reason) (\(clients.count) clients connected); trying again shortly")
        }
    }

    private func addClient(fd: Int32, peer: String) {
        var size = Int32(limits.kernelSendBuffer)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let number = nextNumber
        nextNumber += 1
        let timer = loop.schedule(after: limits.handshakeTimeout) { [weak self] in
            self?.assumeIsolated { $0.handshakeExpired(number) }
        }
        let client = EngineClient(
            number: number, fd: fd, peer: peer,
            decoder: FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength, maximumFirstPayloadLength: limits.maximumFirstPayloadLength),
            phase: .awaitingHello(timer))
        let port = EnginePort(number: number, sink: self)
        do {
            client.token = try loop.register(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, handler: port)
            client.interest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        } catch {
            loop.cancel(timer)
            close(fd)
            log("\(peer): cannot watch the connection (\(error))")
            return
        }
        clients[number] = client
    }

    private func handshakeExpired(_ number: Int) {
        guard let client = clients[number], case .awaitingHello = client.phase, !client.finishing else { return }
        violation(number, ErrorMessage(.handshakeTimeout, "no hello within \(limits.handshakeTimeout.readable); send hello first"))
    }

    // MARK: Reading

    private func clientReady(_ number: Int, events: UInt32) {
        guard let client = clients[number] else { return }
        if events & EPOLLOUT.rawValue != 0 || events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            touched.insert(number)
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            read(client)
        }
    }

    /// Reads what the client sent and handles its whole frames. (The client is looked up once
    /// and held: the table is searched at every lookup.)
    private func read(_ client: EngineClient) {
        let number = client.number
        var budget = 256 << 10
        while budget > 0, !client.gone, !client.finishing, !client.inputEnded, canRead(client) {
            let count = scratch.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                budget -= count
                scratch.withUnsafeBytes { client.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0 ..< count])) }
                handleFrames(client)
                updateBudget(client)
                // A short read took all there was: epoll says when there is more, and a read
                // that would only say "nothing yet" is saved.
                if count < scratch.count { break }
            } else if count == 0 {
                endOfStream(number)
                return
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else if errno == ECONNRESET, !client.decoder.hasPartialFrame {
                endOfStream(number)
                return
            } else {
                log("\(client.peer): \(SystemError("read"))")
                dropClient(number)
                return
            }
        }
        touched.insert(number)
    }

    /// Whether a client may be read from now: it is not ending, and it reads its answers.
    private func canRead(_ client: EngineClient) -> Bool {
        !client.finishing && client.output.unsent < limits.outputReadLimit
            && client.output.answers + client.owed + client.held.count < limits.unansweredLimit
    }

    /// Takes every whole frame the client's decoder holds, while it may be read from.
    private func handleFrames(_ client: EngineClient) {
        let number = client.number
        while !client.gone, canRead(client) {
            let frame: [UInt8]?
            do {
                frame = try client.decoder.nextFrame()
            } catch {
                switch error {
                case let .payloadTooLarge(length, limit):
                    let when = client.hello == nil ? " before hello" : ""
                    log("\(client.peer): frame of \(length) bytes refused\(when)")
                    violation(number, ErrorMessage(.frameTooLarge, "a frame announced \(length) bytes; the limit\(when) is \(limit)"))
                default:
                    log("\(client.peer): \(error)")
                    violation(number, ErrorMessage(.truncatedFrame, error.description))
                }
                return
            }
            guard let frame else {
                heldBack.remove(number)
                if client.inputEnded { endInput(client) }
                return
            }
            handle(frame, from: client)
        }
        if !client.gone, client.decoder.bufferedByteCount > 0 { heldBack.insert(number) }
    }

    /// The client's stream ended. Whole frames may still wait in its decoder, behind the limit
    /// on unanswered actions: they are handled as it reads its answers, and its session ends
    /// after them (``endInput(_:)``).
    private func endOfStream(_ number: Int) {
        guard let client = clients[number], !client.inputEnded else { return }
        client.inputEnded = true
        handleFrames(client)
    }

    /// Every whole frame of a client whose stream ended is handled: what is left is part of a
    /// frame (truncated), or nothing (the session ends).
    private func endInput(_ client: EngineClient) {
        let number = client.number
        guard !client.finishing else { return }
        if client.decoder.hasPartialFrame {
            do {
                try client.decoder.finish()
            } catch {
                log("\(client.peer): \(error)")
                violation(number, ErrorMessage(.truncatedFrame, error.description))
                return
            }
        }
        finish(number)
    }

    /// Keeps the input budget: what partial frames all clients hold. Past the hard limit, the
    /// clients holding the most are let go, biggest first, until the rest fit.
    private func updateBudget(_ client: EngineClient) {
        guard !client.gone else { return }
        let held = client.decoder.bufferedByteCount
        budgetTotal += held - client.budgetHeld
        client.budgetHeld = held
        let limit = limits.inputBudget.hard
        guard budgetTotal > limit else { return }
        for (victim, client) in clients.sorted(by: { $0.value.budgetHeld > $1.value.budgetHeld }) {
            guard budgetTotal > limit, client.budgetHeld > 0 else { break }
            let held = client.budgetHeld
            log("\(client.peer): disconnected: it held \(held) bytes of unprocessed input when all clients together passed \(limit) bytes")
            budgetTotal -= held
            clients[victim]!.budgetHeld = 0
            clients[victim]!.decoder = FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength)
            violation(victim, ErrorMessage(.tooLarge, "this client held \(held) bytes of input the core had not processed, and all clients together passed the core's limit of \(limit) bytes; send fewer or smaller frames at a time, and read the answers"))
        }
    }

    // MARK: Messages

    private func handle(_ frame: [UInt8], from client: EngineClient) {
        if case let .welcomed(hello) = client.phase, applyPlainAction(frame, from: client, hello: hello) { return }
        if quarantine.refusesFrames, quarantine.refuses(frame: frame) {
            log("\(client.peer): refused a frame that crashed the core before")
            violation(client.number, ErrorMessage(.crashedCore, "this frame crashed the core once and is refused"))
            return
        }
        // Noted, so that a crash while it is read or applied is known at the next start.
        CrashNote.begin(.frame, client: client.clientJSON, seq: nil, bytes: frame[...])
        handleMessage(frame, from: client.number, client: client)
        CrashNote.end()
    }

    /// Any frame but a plain action: decoded as a message. (Apart from ``handle(_:from:)``, so
    /// that the plain action's path does not pay for this one's generic locals.)
    private func handleMessage(_ frame: [UInt8], from number: Int, client: EngineClient) {
        let message: ClientMessage<Action>
        do {
            message = try WireJSON.decode(ClientMessage<Action>.self, from: frame)
        } catch let invalid as InvalidActionError {
            guard client.hello != nil else {
                violation(number, ErrorMessage(.helloRequired, "the first message must be hello"))
                return
            }
            if trace, let hello = client.hello {
                log("trace refused from client \(PeerText.forLog(hello.client)) #\(invalid.seq): an action that does not decode: \(PeerText.forLog(invalid.reason)) (invalid_action)")
            }
            let rejection = Rejection.invalidAction(invalid.reason)
            answer(number, .reject(Reject(seq: invalid.seq, code: rejection.code, message: invalid.reason)))
            return
        } catch {
            let reason = describeDecodingFailure(error)
            log("\(client.peer): bad frame: \(PeerText.forLog(reason))")
            violation(number, ErrorMessage(.badFrame, "a frame is not a valid message: \(reason)"))
            return
        }
        switch (message, client.phase) {
        case let (.hello(hello), .awaitingHello(timer)):
            if let timer { loop.cancel(timer) }
            welcome(number, hello)
        case (.hello, .welcomed):
            violation(number, ErrorMessage(.unexpectedMessage, "hello was already sent on this connection"))
        case (_, .awaitingHello):
            violation(number, ErrorMessage(.helloRequired, "the first message must be hello"))
        case let (.action(request), .welcomed(hello)):
            apply(request.action, seq: request.seq, from: client, hello: hello)
        case (.bye, .welcomed):
            finish(number)
        }
    }

    /// The most common frame, an action in its plain form (``PlainActionFrame``), read without
    /// the generic decoding of every message: only the action itself is parsed, decoded and
    /// applied, and the journal copies its text. Returns false for anything else, which takes
    /// the general path (that also says what is wrong). (The action is not returned: a tuple or
    /// optional of a generic type costs a metadata lookup at every action.)
    private func applyPlainAction(_ frame: [UInt8], from client: EngineClient, hello: Hello) -> Bool {
        guard let plain = PlainActionFrame.scan(frame) else { return false }
        // Noted from its reading to its journal record: a crash anywhere in between is known at
        // the next start, and the action refused from then on.
        CrashNote.begin(.action, client: client.clientJSON, seq: plain.seq, bytes: frame[plain.action])
        defer { CrashNote.end() }
        let parsed: JSONValue
        do {
            parsed = try frame.withUnsafeBytes { raw throws(JSONSyntaxError) in
                try JSONParser().parse(UnsafeRawBufferPointer(rebasing: raw[plain.action]))
            }
        } catch {
            return false
        }
        // The client field is not used: the hello's client id is the one that counts.
        if !quarantine.isEmpty, refuseQuarantined(parsed, seq: plain.seq, from: client, hello: hello) { return true }
        let action: Action
        do {
            action = try JSONValueDecoder().decode(Action.self, from: parsed)
        } catch {
            return false
        }
        apply(action, seq: plain.seq, json: frame[plain.action], from: client, hello: hello)
        return true
    }

    /// Answers a client's action that crashed the core before with `crashed_core`, unless it
    /// was applied before (a resend, answered with its original ack as always). Returns whether
    /// it was refused.
    private func refuseQuarantined(_ action: JSONValue, seq: UInt64, from client: EngineClient, hello: Hello) -> Bool {
        guard kernel.ledger.verdict(client: hello.client, seq: seq) == .new,
              quarantine.entry(client: hello.client, seq: seq, action: action) != nil else { return false }
        if trace {
            log("trace refused from client \(PeerText.forLog(hello.client)) #\(seq): it crashed the core before (crashed_core)")
        }
        let refusal = Rejection.crashedCore
        answer(client.number, .reject(Reject(seq: seq, code: refusal.code, message: refusal.message)))
        return true
    }

    private func welcome(_ number: Int, _ hello: Hello) {
        guard hello.protocolVersion == ProtocolVersion.current else {
            violation(number, ErrorMessage(
                .versionMismatch,
                "this core speaks protocol \(ProtocolVersion.current) and the client speaks \(hello.protocolVersion); use matching versions of the core and the client",
                protocolVersion: ProtocolVersion.current))
            return
        }
        clients[number]?.phase = .welcomed(hello)
        clients[number]?.clientJSON = JSONFragment.string(hello.client)
        if hello.role.receivesRenditions {
            receivers.insert(number)
            log("attached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)), \(clients[number]!.peer))")
        }
        pending.append(.welcome(client: number, bytes: welcomeFrame(shells: receivers.count)))
        if hello.role.receivesRenditions { announcePresence(except: number) }
    }

    /// The welcome at the current revision; the state's encoding is shared by every client
    /// welcomed at that revision.
    private func welcomeFrame(shells: Int) -> [UInt8] {
        guard let state = stateJSON() else {
            let welcome = Welcome(core: instanceID, pid: getpid(), shells: shells, revision: kernel.revision, snapshot: kernel.state)
            return ServerMessage<State>.welcome(welcome).frame()
        }
        return WelcomeFrame.frame(core: instanceID, pid: getpid(), shells: shells, revision: kernel.revision, snapshot: state)
    }

    /// A snapshot rendition of the state now.
    private func snapshotFrame() -> [UInt8] {
        guard let state = stateJSON() else {
            return ServerMessage<State>.rendition(Rendition(revision: kernel.revision, content: .snapshot(kernel.state))).frame()
        }
        return RenditionFrame.snapshotFrame(revision: kernel.revision, snapshot: state)
    }

    /// The state's JSON now, encoded at most once per revision (nil if it cannot be encoded).
    private func stateJSON() -> [UInt8]? {
        if let stateCache, stateCache.revision == kernel.revision { return stateCache.json }
        guard let json = try? WireJSON.encode(kernel.state) else { return nil }
        stateCache = (kernel.revision, json)
        return json
    }

    private func apply(_ action: Action, seq: UInt64, json: ArraySlice<UInt8>? = nil, from client: EngineClient, hello: Hello) {
        if json == nil, !quarantine.isEmpty, let value = try? JSONValue(encoding: action),
           refuseQuarantined(value, seq: seq, from: client, hello: hello) {
            return
        }
        if let refusal = admits(action) {
            if trace { log(TraceLine.rejected(action: action, origin: .client(id: hello.client, seq: seq), rejection: refusal)) }
            answer(client.number, .reject(Reject(seq: seq, code: refusal.code, message: refusal.message)))
            return
        }
        apply(action, json: json, from: .client(id: hello.client, seq: seq), client: client, seq: seq)
    }

    /// Applies an action and queues what follows: the journal record, the rendition for every
    /// shell, the answer to its sender (if a client sent it), and its effects.
    /// - Parameter json: the action's JSON as the client sent it, when the engine has it: the
    ///   journal writes it as it is, instead of encoding the action again.
    private func apply(_ action: Action, json: ArraySlice<UInt8>? = nil, from origin: ActionOrigin, client: EngineClient?, seq: UInt64?) {
        guard !failed else { return }
        switch kernel.apply(action, from: origin, keepingPrevious: trace || !receivers.isEmpty) {
        case let .duplicate(revision):
            answerDuplicate(action, from: origin, client: client?.number, seq: seq, revision: revision)
        case let .rejected(rejection):
            answerRejected(action, from: origin, client: client?.number, seq: seq, rejection: rejection)
        case let .applied(applied):
            record(applied, json: json, client: client)
            // Not recorded: nothing about it may go out.
            if failed { return }
            if trace {
                log(TraceLine.applied(action: action, origin: origin, revision: applied.revision, previous: applied.previous, state: kernel.state))
            }
            if !receivers.isEmpty { broadcastRendition(applied) }
            if let client, let seq {
                client.owed += 1
                pending.append(.frame(client: client.number, bytes: ScriptFrames.ackFrame(seq: seq, revision: applied.revision), isAnswer: true))
            }
            run(applied.effect)
        }
    }

    // The answers other than an ack, apart from ``apply(_:json:from:client:seq:)`` so that an
    // applied action does not pay for their generic messages.

    private func answerDuplicate(_ action: Action, from origin: ActionOrigin, client number: Int?, seq: UInt64?, revision: UInt64) {
        if trace { log(TraceLine.duplicate(action: action, origin: origin, revision: revision)) }
        if let number, let seq { answer(number, .ack(Ack(seq: seq, revision: revision))) }
    }

    private func answerRejected(_ action: Action, from origin: ActionOrigin, client number: Int?, seq: UInt64?, rejection: Rejection) {
        if trace {
            log(TraceLine.rejected(action: action, origin: origin, rejection: rejection))
        } else if origin == .effect {
            log("an effect's action was rejected: \(PeerText.forLog(rejection.message)) (\(PeerText.forLog(rejection.code)))")
        }
        if let number, let seq { answer(number, .reject(Reject(seq: seq, code: rejection.code, message: rejection.message))) }
    }

    private func record(_ applied: StoreKernel<State, Action, Environment>.Applied, json: ArraySlice<UInt8>?, client engineClient: EngineClient?) {
        guard let journal else { return }
        var client: String?
        var seq: UInt64?
        if case let .client(id, number) = applied.origin {
            client = id
            seq = number
        }
        let at = applied.at.timeIntervalSince1970
        if let json, let client, let seq {
            // ``JournalEntry``'s JSON, with the action's text as the client sent it, written
            // straight into the journal's buffer. (No closure here: one formed in the engine
            // checks its isolation when called.)
            var clientJSON = engineClient?.clientJSON ?? []
            if clientJSON.isEmpty { clientJSON = JSONFragment.string(client) }
            journal.appendEntry(action: json, at: at, client: clientJSON, revision: applied.revision, seq: seq)
            return
        }
        do {
            let record = try Self.journalText(revision: applied.revision, at: at, client: client, seq: seq, action: applied.action)
            journal.append(revision: applied.revision, record: DurableRecord.encode(record))
        } catch {
            // Applied, and not recordable (an effect's action holding a NaN, say): nothing more
            // may be acknowledged, as when the journal cannot be written.
            let reason = "revision \(applied.revision) could not be encoded for the journal: \(error)"
            log("the journal cannot be written (\(reason)); stopping so that nothing unrecorded is acknowledged")
            fail(JournalFailure(reason: reason))
        }
    }

    /// A ``JournalEntry``'s JSON, encoded (apart from ``record(_:json:)``, whose usual path
    /// writes it by hand).
    private static func journalText(revision: UInt64, at: Double, client: String?, seq: UInt64?, action: Action) throws -> [UInt8] {
        try WireJSON.encode(JournalEntry<Action>(revision: revision, at: at, client: client, seq: seq, action: action))
    }

    /// The rendition of an applied action for every shell: a patch from the state before (the
    /// whole state if there is none), encoded once.
    private func broadcastRendition(_ applied: StoreKernel<State, Action, Environment>.Applied) {
        let revision = applied.revision
        var content = Rendition<State>.Content.snapshot(kernel.state)
        if let previous = applied.previous {
            do {
                content = .patch(try kernel.state.patch(from: previous))
            } catch {
                log("could not diff revision \(revision) (\(error)); sending a snapshot")
            }
        }
        pending.append(.rendition(ServerMessage<State>.rendition(Rendition(revision: revision, content: content)).frame()))
    }

    private func run(_ effect: Effect<Action>) {
        for step in effect.steps {
            switch step {
            case let .send(next):
                applyOwn(next, from: .effect)
            case let .work(work):
                _ = runtime.start(work)
            case let .cancel(ids):
                runtime.cancel(ids)
            }
        }
    }

    private func applyEffectAction(_ action: Action) {
        applyOwn(action, from: .effect)
        touchTurn()
    }

    /// Applies an action of the core's own (an effect's, or one it sends itself), noted for a
    /// crash as clients' actions are; one that crashed the core before is dropped.
    private func applyOwn(_ action: Action, from origin: ActionOrigin) {
        let json = (try? WireJSON.encode(action)) ?? []
        if !quarantine.isEmpty, let value = try? JSONParser().parse(json), let entry = quarantine.entry(ownAction: value) {
            log("dropped an action of the core's own that crashed it before: \(entry.summary)")
            return
        }
        CrashNote.begin(.own, client: [], seq: nil, bytes: json[...])
        apply(action, from: origin, client: nil, seq: nil)
        CrashNote.end()
    }

    private func broadcastNotice(_ text: String) {
        pending.append(.notice(ServerMessage<State>.notice(Notice(text: text)).frame()))
        touchTurn()
    }

    private func announcePresence(except number: Int?) {
        pending.append(.presence(except: number))
    }

    private func answer(_ number: Int, _ message: ServerMessage<State>) {
        owe(number)
        pending.append(.frame(client: number, bytes: message.frame(), isAnswer: true))
    }

    private func owe(_ number: Int) {
        clients[number]?.owed += 1
    }

    /// A protocol violation: nothing more is read; the error follows what the client is owed.
    private func violation(_ number: Int, _ error: ErrorMessage) {
        guard clients[number] != nil, !(clients[number]!.finishing) else { return }
        pending.append(.frame(client: number, bytes: ServerMessage<State>.error(error).frame(), isAnswer: false))
        finish(number)
    }

    /// The client's session ends: nothing more is read; it is closed once what it is owed (and
    /// queued so far) is written, or after the closing grace.
    private func finish(_ number: Int) {
        guard clients[number] != nil, !(clients[number]!.finishing) else { return }
        clients[number]!.finishing = true
        heldBack.remove(number)
        pending.append(.finish(client: number))
    }

    // MARK: The end of a turn

    private var turnWanted = false

    /// Makes sure an end of turn runs soon: the current turn's, or the next one.
    private func touchTurn() {
        turnWanted = true
        if !loop.isInLoopThread { loop.execute {} }
    }

    private func endTurn() {
        guard !pending.isEmpty || !touched.isEmpty || !heldBack.isEmpty || turnWanted || (journal?.hasPending ?? false) else { return }
        turnWanted = false
        // Frames held back until their clients read some answers, now that they may have.
        for number in heldBack.sorted() {
            guard let client = clients[number], canRead(client) else { continue }
            handleFrames(client)
            updateBudget(client)
        }
        if let journal, journal.hasPending, !failed {
            if journal.policy == .always {
                // About to wait for the disk: first take in the actions that arrived during
                // this turn (and during that), so that one sync covers them too (otherwise
                // they wait for this sync, then need one of their own).
                var rounds = 0
                while rounds < 4, loop.handleReadyNow() > 0 { rounds += 1 }
            }
            do {
                try journal.commit { snapshotContent() }
            } catch {
                fail(error)
                return
            }
            armJournalCheck()
        }
        release()
        settleTouched()
    }

    private func settleTouched() {
        for number in touched.sorted() { settle(number) }
        touched.removeAll(keepingCapacity: true)
    }

    private var journalCheckArmed = false

    /// Under `batch` and `never`, the journal checks that its file is still in place within
    /// 100 ms of a write, also when nothing more is written.
    private func armJournalCheck() {
        guard let journal, journal.needsCheck, !journalCheckArmed else { return }
        journalCheckArmed = true
        loop.schedule(after: FsyncPolicy.batchInterval) { [weak self] in
            self?.assumeIsolated { $0.checkJournal() }
        }
    }

    private func checkJournal() {
        journalCheckArmed = false
        guard let journal, !failed else { return }
        do {
            try journal.commit { snapshotContent() }
        } catch {
            fail(error)
            return
        }
        armJournalCheck()
    }

    /// The state now, for a snapshot (the journal asks for it only when it needs one).
    private func snapshotContent() -> SnapshotContent<State> {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return SnapshotContent(revision: kernel.revision, at: Double(now.tv_sec), state: kernel.state, ledger: kernel.ledger)
    }

    private func fail(_ error: JournalFailure) {
        failed = true
        pending.removeAll()
        journalFailed(error)
    }

    /// Hands the turn's output to the clients, in order.
    private func release() {
        guard !pending.isEmpty, !failed else { return }
        let turn = pending
        pending.removeAll(keepingCapacity: true)
        for item in turn {
            switch item {
            case let .frame(number, bytes, isAnswer):
                guard let client = clients[number] else { continue }
                if isAnswer { client.owed -= 1 }
                if client.lagging {
                    // Held, so that it does not overtake the rendition of its revision.
                    client.held.append((bytes, isAnswer))
                } else {
                    client.output.append(bytes, isAnswer: isAnswer)
                }
                touched.insert(number)
            case let .welcome(number, bytes):
                guard let client = clients[number] else { continue }
                client.output.append(bytes, isWholeState: true)
                client.greeted = true
                touched.insert(number)
            case let .rendition(bytes):
                for number in receivers {
                    // Not before its welcome, which holds this revision or a later one, nor
                    // after the end of its session.
                    guard let client = clients[number], client.greeted, !client.finished else { continue }
                    if client.lagging || client.output.unsentAfterState >= limits.renditionHighWater {
                        // Skipped: the snapshot it gets once it catches up supersedes it.
                        client.lagging = true
                    } else {
                        client.output.append(bytes)
                    }
                    touched.insert(number)
                }
            case let .notice(bytes):
                for number in receivers {
                    guard let client = clients[number], client.greeted, !client.finished else { continue }
                    if client.lagging || client.output.unsentAfterState >= limits.renditionHighWater {
                        client.lagging = true
                        client.held.append((bytes, false))
                        client.heldMessages += 1
                    } else {
                        client.output.append(bytes)
                    }
                    touched.insert(number)
                    if client.heldMessages > limits.heldMessageLimit { tooSlow(number) }
                }
            case let .presence(except):
                let bytes = ServerMessage<State>.presence(Presence(shells: receivers.count)).frame()
                for number in receivers where number != except {
                    guard let client = clients[number], client.greeted, !client.finished else { continue }
                    if client.lagging {
                        // Only the newest count matters: it follows the snapshot.
                        client.missedPresence = true
                    } else {
                        client.output.append(bytes)
                    }
                    touched.insert(number)
                }
            case let .finish(number):
                guard clients[number] != nil else { continue }
                clients[number]!.finished = true
                clients[number]!.deadline = ContinuousClock.now + limits.closingGrace
                touched.insert(number)
                let deadline = limits.closingGrace
                loop.schedule(after: deadline) { [weak self] in
                    self?.assumeIsolated { engine in
                        guard engine.clients[number]?.finishing == true else { return }
                        engine.touched.insert(number)
                        engine.turnWanted = true
                    }
                }
            }
        }
    }

    /// Writes what waits for a client, catches a lagging shell up once it has read enough,
    /// closes a finished client once it is done, and watches its socket for what it needs.
    private func settle(_ number: Int) {
        guard let client = clients[number] else { return }
        if client.lagging { catchUpIfReady(client) }
        guard client.output.flush(to: client.fd) else {
            dropClient(number)
            return
        }
        // What was just written may be what it lagged behind: it catches up now, not when more
        // output comes (on a quiet core none would, and its held answers would wait forever).
        if client.lagging, catchUpIfReady(client), !client.output.flush(to: client.fd) {
            dropClient(number)
            return
        }
        if client.output.unsent > limits.outputHardLimit {
            log("disconnecting \(client.hello.map { "\($0.role.rawValue) '\(PeerText.forLog($0.name))'" } ?? client.peer): it fell too far behind (\(client.output.unsent) bytes unread)")
            dropClient(number)
            return
        }
        // Its session ends once the finish is handed over (after everything queued before it,
        // which may wait for the journal) and written, or at the deadline.
        if client.finishing, let deadline = client.deadline, client.output.isEmpty && client.held.isEmpty || ContinuousClock.now >= deadline {
            dropClient(number)
            return
        }
        var wanted: UInt32 = 0
        if canRead(client), !client.finishing, !client.inputEnded { wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if !client.output.isEmpty { wanted |= EPOLLOUT.rawValue }
        if wanted != client.interest, let token = client.token {
            loop.modify(client.fd, token: token, events: wanted)
            client.interest = wanted
        }
        // A client that may read again, with frames waiting in its decoder, has them handled
        // next turn (no new bytes may come to wake it).
        if canRead(client), client.decoder.bufferedByteCount > 0 {
            heldBack.insert(number)
            turnWanted = true
            loop.execute {}
        }
    }

    /// A lagging client that has read enough of what waited for it catches up: the newest
    /// state supersedes every rendition it missed, and the messages held meanwhile follow it.
    /// An ending client gets the snapshot only if it is owed an answer (whose revision the
    /// snapshot must hold before the answer arrives: rendition before ack).
    /// - Returns: whether it caught up.
    @discardableResult
    private func catchUpIfReady(_ client: EngineClient) -> Bool {
        guard client.lagging, client.output.unsent < limits.renditionLowWater else { return false }
        if !client.finishing || client.held.contains(where: \.isAnswer) {
            client.output.append(snapshotFrame(), isWholeState: true)
        }
        if client.missedPresence, !client.finishing {
            client.output.append(ServerMessage<State>.presence(Presence(shells: receivers.count)).frame())
        }
        catchUp(client)
        return true
    }

    /// Hands a lagging client the messages held for it, in order.
    private func catchUp(_ client: EngineClient) {
        for (bytes, isAnswer) in client.held { client.output.append(bytes, isAnswer: isAnswer) }
        client.held = []
        client.heldMessages = 0
        client.missedPresence = false
        client.lagging = false
    }

    /// A client that let too many notices pile up unread: what it is not owed is dropped, the
    /// answers it is owed are kept, and it is let go with `too_slow` after them.
    private func tooSlow(_ number: Int) {
        guard let client = clients[number], !client.finishing else { return }
        client.held = client.held.filter(\.isAnswer)
        client.heldMessages = 0
        client.held.append((ServerMessage<State>.error(ErrorMessage(
            .tooSlow, "this client fell \(limits.heldMessageLimit) messages behind; read what the core sends, then reconnect")).frame(), false))
        // The error that ends it is handed over: nothing more is queued for it.
        client.finished = true
        log("disconnecting \(client.hello.map { "\($0.role.rawValue) '\(PeerText.forLog($0.name))'" } ?? client.peer): it fell \(limits.heldMessageLimit) messages behind")
        finish(number)
        // The finish item is handed over next turn.
        turnWanted = true
        loop.execute {}
    }

    /// Closes a client's connection and forgets it.
    private func dropClient(_ number: Int) {
        guard let client = clients.removeValue(forKey: number) else { return }
        client.gone = true
        if let token = client.token { loop.deregister(client.fd, token: token) }
        close(client.fd)
        if case let .awaitingHello(timer?) = client.phase { loop.cancel(timer) }
        budgetTotal -= client.budgetHeld
        heldBack.remove(number)
        touched.remove(number)
        if receivers.remove(number) != nil, let hello = client.hello {
            log("detached \(hello.role.rawValue) '\(PeerText.forLog(hello.name))' (client \(PeerText.forLog(hello.client)))")
            if !stopped { announcePresence(except: nil) }
        }
        if clients.isEmpty, !stopWaiters.isEmpty {
            let waiters = stopWaiters
            stopWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }
}

extension CoreEngine: EngineEventSink {
    nonisolated func clientEvents(_ number: Int, _ events: UInt32) {
        assumeIsolated { $0.clientReady(number, events: events) }
    }
}

/// A turn's output, as the engine queues it until the turn's journal records are written. (Not
/// nested in the generic engine, where every use of it would look up its generic metadata.)
private enum Pending {
    /// A frame for one client; an answer counts against its unanswered limit.
    case frame(client: Int, bytes: [UInt8], isAnswer: Bool)
    /// A client's welcome: from then on it gets what is sent to every shell.
    case welcome(client: Int, bytes: [UInt8])
    /// A rendition for every receiver.
    case rendition([UInt8])
    /// A notice for every receiver.
    case notice([UInt8])
    /// The number of shells, for every receiver but one (the newcomer, whose welcome has it).
    case presence(except: Int?)
    /// The client's session ends once what came before is written.
    case finish(client: Int)
}

/// A weak reference to an engine, for the effects' runtime it creates before it exists.
private final class WeakEngine<State: Codable & Sendable & Diffable, Action: Codable & Sendable, Environment: Sendable>: Sendable {
    private let reference = Mutex<Weak?>(nil)

    private struct Weak {
        weak var engine: CoreEngine<State, Action, Environment>?
    }

    var value: CoreEngine<State, Action, Environment>? {
        get { reference.withLock { $0?.engine } }
        set { reference.withLock { $0 = Weak(engine: newValue) } }
    }
}
