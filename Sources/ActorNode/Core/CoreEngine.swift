import CSystemShims
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
///
/// This file holds the engine's state, its limits and what the host and tests call; its work
/// is in one extension per job: `CoreEngine+Connections.swift` (accepting, reading, the input
/// budget, the end of a stream), `CoreEngine+Handshake.swift` (each frame by the session's
/// phase, hello and welcome, the end of a session), `CoreEngine+Applying.swift` (applying,
/// journaling, effects, the quarantine's checks) and `CoreEngine+FanOut.swift` (the end of a
/// turn, the output released to every client, backpressure, catching up, dropping a client).
package actor CoreEngine<State: Codable & Sendable & Equatable, Action: Codable & Sendable, Environment: Sendable> {
    /// How much a client may make the core hold.
    package struct Limits: Sendable {
        /// The largest frame accepted once a client has said hello.
        package var maximumPayloadLength = Frame.defaultMaximumPayloadLength
        /// The largest first frame (the hello).
        package var maximumFirstPayloadLength = 64 << 10
        /// How long a new connection has to say hello.
        package var handshakeTimeout: Duration = .seconds(10)
        /// The input budget: bytes of partial frames all clients together may hold. Past four
        /// times it, the clients holding the most are let go, biggest first, until the rest fit.
        /// (The host sets it from `--max-buffered`, whose default is this one.)
        package var inputBudget = 64 << 20
        /// The kernel's send buffer of each client socket: kept small, so that a client that
        /// stops reading is noticed early and its renditions coalesce.
        package var kernelSendBuffer = 32 << 10
        /// Renditions are held back from a shell while this much waits to be written...
        package var renditionHighWater = 64 << 10
        /// ...until less than this waits; it then gets a snapshot of the newest state.
        package var renditionLowWater = 16 << 10
        /// The most answers that may wait to be written to one client before it is not read
        /// from (fewer than the ledger remembers per client).
        package var unansweredLimit = 512
        /// The most bytes that may wait to be written to one client before it is not read from.
        package var outputReadLimit = 1 << 20
        /// A client that leaves this much unread (answers, welcomes, notices) is let go.
        package var outputHardLimit = 64 << 20
        /// Messages other than renditions (notices) held for a lagging shell before it is let
        /// go with `too_slow`.
        package var heldMessageLimit = 4096
        /// How long a client ending its session gets to read what it is owed.
        package var closingGrace: Duration = .seconds(2)
        /// The most clients connected at once; more wait in the socket's backlog. The host sets
        /// it from the limit on open files, less a reserve (``DescriptorLimit``).
        package var maximumClients = Int.max

        package init() {}
    }

    package nonisolated let loop: EventLoop
    /// Identifies this run of the core; sent in every welcome.
    package nonisolated let instanceID: String
    /// This process's id, sent in every welcome (asked once: glibc asks the kernel each time).
    nonisolated let processID = getpid()
    package nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    // The engine's mutable state is marked `@exclusivity(unchecked)`: Swift checks at run time
    // that no two accesses to a class's or an actor's stored property overlap, at a cost of
    // about 70 instructions an access, and an action touches these some 40 times (callgrind:
    // 11% of the core's instructions per action). The check can only catch one thread's code
    // re-entering itself; this state belongs to the actor, whose executor is the loop's one
    // thread, and none of its accesses calls out to code that could come back to it (the
    // compiler's static check still covers each function). EngineClient's and JournalWriter's
    // state, owned by the engine, is marked for the same reason.
    let kernel: StoreKernel<State, Action, Environment>
    let runtime: EffectRuntime<Action>
    let journal: JournalWriter<State>?
    let limits: Limits
    let admits: @Sendable (Action) -> Rejection?
    /// Inputs that crashed the core before: refused, not applied.
    let quarantine: Quarantine
    let trace: Bool
    let log: @Sendable (String) -> Void
    let journalFailed: @Sendable (JournalFailure) -> Void

    @exclusivity(unchecked) var clients = ClientTable()
    @exclusivity(unchecked) var nextNumber = 1
    /// Welcomed clients that receive renditions, in the order of their numbers.
    @exclusivity(unchecked) var receivers = Receivers()
    /// The turn's output, released in order once the turn's journal records are written.
    @exclusivity(unchecked) var pending: [Pending] = []
    /// Clients with something to write, or to look at again, at the end of the turn.
    @exclusivity(unchecked) var touched = TouchedClients()
    /// Clients whose frames wait in their decoder until they read some of their answers.
    @exclusivity(unchecked) var heldBack: Set<Int> = []
    @exclusivity(unchecked) var listener: (fd: Int32, token: UInt64, path: String)?
    @exclusivity(unchecked) var acceptPaused = false
    @exclusivity(unchecked) var acceptStarved = false
    @exclusivity(unchecked) var budgetTotal = 0
    @exclusivity(unchecked) var stopped = false
    @exclusivity(unchecked) var failed = false
    /// The state's JSON at a revision, encoded once for every welcome and snapshot of it; let
    /// go when an action makes the next revision.
    @exclusivity(unchecked) var stateCache: (revision: UInt64, json: [UInt8])?
    @exclusivity(unchecked) var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private nonisolated let hook = Mutex<UInt64?>(nil)
    /// Where clients' actions are read into, one after another (``applyPlainAction``).
    @exclusivity(unchecked) var actionTape = JSONTape()
    /// ``clientReady(_:events:)`` and ``endTurn()`` as functions of an engine that is not
    /// marked isolated, each made once: how the loop's events and the end of its turns come in,
    /// at every action, once ``clientEvents(_:_:)`` and the end-of-turn hook have checked that
    /// they run on the loop's thread. (``onLoopThread(_:)`` wraps its closure for the call,
    /// which allocates two contexts and frees them: about 700 instructions an action.)
    private nonisolated let clientReadyEntry: @Sendable (CoreEngine, Int, UInt32) -> Void = unsafeBitCast(
        { (engine: isolated CoreEngine, number: Int, events: UInt32) in engine.clientReady(number, events: events) }
            as @Sendable (isolated CoreEngine, Int, UInt32) -> Void,
        to: (@Sendable (CoreEngine, Int, UInt32) -> Void).self)
    private nonisolated let endTurnEntry: @Sendable (CoreEngine) -> Void = unsafeBitCast(
        { (engine: isolated CoreEngine) in engine.endTurn() } as @Sendable (isolated CoreEngine) -> Void,
        to: (@Sendable (CoreEngine) -> Void).self)
    /// Where sockets are read into: one buffer, used on the loop's thread only.
    @exclusivity(unchecked) var scratch = [UInt8](repeating: 0, count: 64 << 10)
    /// An end of turn is wanted even if nothing is pending (``touchTurn()``).
    @exclusivity(unchecked) var turnWanted = false
    /// A check of the journal's file is scheduled (``armJournalCheck()``).
    @exclusivity(unchecked) var journalCheckArmed = false
    /// Where queries about the past are answered from (nil: they are refused).
    @exclusivity(unchecked) var lookBack: LookBack?
    /// Queries being answered on threads of their own.
    @exclusivity(unchecked) var lookThreads = 0
    /// Clients whose query is being answered: one at a time per connection.
    @exclusivity(unchecked) var asking: Set<Int> = []
    /// Clients following the history, by number.
    @exclusivity(unchecked) var historyFollowers: [Int: HistoryFollower] = [:]
    /// The history readers at work, by their client's number.
    @exclusivity(unchecked) var historyPipes: [Int: HistoryPipe] = [:]
    /// Clients whose history reader waits for them to read what they were sent.
    @exclusivity(unchecked) var historyWaiting: Set<Int> = []

    /// - Parameters:
    ///   - state: the state to start from (what recovery found).
    ///   - revision: its revision.
    ///   - ledger: the client ledger at that revision.
    ///   - timers: the durable timers scheduled at that revision: armed at once (one whose
    ///     deadline passed fires at once).
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
        state: State, revision: UInt64 = 0, ledger: ClientLedger = ClientLedger(), timers: DurableTimers<Action> = DurableTimers(),
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
        kernel = StoreKernel(state: state, revision: revision, ledger: ledger, timers: timers, reducer: reducer, environment: environment, time: time)
        self.journal = journal
        self.limits = limits
        self.admits = admits
        self.quarantine = quarantine
        self.trace = trace
        self.log = log
        self.journalFailed = journalFailed
        let engine = WeakEngine<State, Action, Environment>()
        runtime = EffectRuntime(time: time) { action, origin in await engine.value?.applyEffectAction(action, from: origin) }
        engine.value = self
        for timer in timers.soonestFirst { runtime.arm(timer) }
        let id = loop.onEndOfTurn { [weak self] in
            guard let self else { return }
            precondition(self.loop.isInLoopThread, "the engine is used off its event loop's thread")
            self.endTurnEntry(self)
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
    package init(
        state: State, reducer: Reducer<State, Action, Environment>, environment: Environment,
        limits: Limits = Limits(), admits: @escaping @Sendable (Action) -> Rejection? = { _ in nil }, loop: EventLoop = .shared
    ) {
        self.init(state: state, journal: nil, reducer: reducer, environment: environment, limits: limits, admits: admits, loop: loop)
    }

    // MARK: What the host and tests call

    /// The current state and its revision.
    package var current: (revision: UInt64, state: State) { (kernel.revision, kernel.state) }

    /// Clients attached that receive renditions.
    package var shellCount: Int { receivers.count }

    /// Clients connected.
    package var clientCount: Int { clients.count }

    /// Starts accepting connections on a bound, listening, non-blocking socket.
    /// - Parameters:
    ///   - fd: the socket.
    ///   - path: its path, for log lines.
    ///
    /// The socket stays its owner's: the engine stops watching it when it stops, and never
    /// closes it.
    package func listen(fd: Int32, path: String) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let port = EnginePort(number: 0) { [weak self] _, _ in
            self?.onLoopThread { $0.acceptReady() }
        }
        let token = try loop.register(fd, events: EPOLLIN.rawValue, handler: port)
        listener = (fd, token, path)
    }

    /// Serves a connected, non-blocking socket as a client (one end of a socketpair, say).
    /// - Parameters:
    ///   - fd: the socket; the engine closes it.
    ///   - peer: who is at the other end, for log lines.
    package func attach(fd: Int32, peer: String = "in-process") {
        addClient(fd: fd, peer: peer)
    }

    /// Applies an action of the core's own (not a client's), e.g. one that resumes timers when
    /// the core starts.
    /// - Parameter action: the action.
    package func send(_ action: Action) {
        applyOwn(action, from: .outside("the core"))
        touchTurn()
    }

    /// Tells every shell and watcher something that is not part of the state, after every
    /// change made so far.
    /// - Parameter text: the notice.
    package nonisolated func notify(_ text: String) {
        // In order with the notices and the actions sent before it.
        loop.execute { [weak self] in self?.onLoopThread { $0.broadcastNotice(text) } }
    }

    /// Stops: no new connections, everything applied written and forced to disk, `bye` to every
    /// client; returns once every client has read it and gone, or after the closing grace.
    /// - Parameter reason: the bye's reason.
    package func stop(reason: String) async {
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
    package func closeJournal() async {
        await journal?.close()
    }

    /// Ends the turn now (the journal writes what it holds, the output goes out), then waits
    /// until no snapshot is being written: for tests that look at the journal's files between
    /// actions.
    func settleJournal() async {
        endTurn()
        await journal?.settle()
    }
}

extension CoreEngine: EngineEventSink {
    nonisolated func clientEvents(_ number: Int, _ events: UInt32) {
        precondition(loop.isInLoopThread, "the engine is used off its event loop's thread")
        clientReadyEntry(self, number, events)
    }

    /// Runs `body` isolated to the engine, from the loop's thread, which is the engine's
    /// executor: what `assumeIsolated` does, and the engine's way in from the loop for what
    /// comes now and then (accepting, its timers, the jobs its threads queue); the two that
    /// come at every action, a client's events and the end of a turn, go through
    /// ``clientReadyEntry`` and ``endTurnEntry``, the same cast made once, since wrapping a
    /// closure here allocates. `assumeIsolated` asks the runtime for the current
    /// executor, which with no task running goes through several lookups to the loop's
    /// `checkIsolated()`, and looks up the engine's generic metadata: about 1,500 instructions
    /// for each call (callgrind). This checks the loop's thread directly, and traps as
    /// `assumeIsolated` does anywhere else, so the cast below holds: the closure is run on the
    /// thread the engine's isolation stands for (the standard library's `assumeIsolated` makes
    /// the same cast once it has checked).
    /// - Parameter body: what to run; it must not escape.
    nonisolated func onLoopThread(_ body: (isolated CoreEngine) -> Void) {
        precondition(loop.isInLoopThread, "the engine is used off its event loop's thread")
        withoutActuallyEscaping(body) { isolatedBody in
            unsafeBitCast(isolatedBody, to: ((CoreEngine) -> Void).self)(self)
        }
    }
}

/// A turn's output, as the engine queues it until the turn's journal records are written. (Not
/// nested in the generic engine, where every use of it would look up its generic metadata.)
enum Pending {
    /// A frame for one client; an answer counts against its unanswered limit.
    case frame(client: Int, bytes: [UInt8], isAnswer: Bool)
    /// An applied action's ack, written straight into its client's output when released (the
    /// most common answer, with no array of its own).
    case ack(client: Int, seq: UInt64, revision: UInt64)
    /// A client's welcome: from then on it gets what is sent to every shell.
    case welcome(client: Int, bytes: [UInt8])
    /// The whole state for one receiver that asked for it (a resync).
    case resync(client: Int, bytes: [UInt8])
    /// A rendition for every receiver.
    case rendition([UInt8])
    /// A notice for every receiver.
    case notice([UInt8])
    /// The number of shells, for every receiver but one (the newcomer, whose welcome has it).
    case presence(except: Int?)
    /// The client's session ends once what came before is written.
    case finish(client: Int)
    /// A query about the past, started once the turn's records are written. (Boxed: every
    /// action queues a ``Pending``, which must stay as small as its most common cases.)
    indirect case lookBack(client: Int, Query)
}

/// A weak reference to an engine, for the effects' runtime it creates before it exists.
private final class WeakEngine<State: Codable & Sendable & Equatable, Action: Codable & Sendable, Environment: Sendable>: Sendable {
    private let reference = Mutex<Weak?>(nil)

    private struct Weak {
        weak var engine: CoreEngine<State, Action, Environment>?
    }

    var value: CoreEngine<State, Action, Environment>? {
        get { reference.withLock { $0?.engine } }
        set { reference.withLock { $0 = Weak(engine: newValue) } }
    }
}
