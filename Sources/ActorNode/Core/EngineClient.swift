import Glibc
import Wire

/// The bytes waiting to be written to one client, and how many of them are answers (acks and
/// rejects), so that a client that does not read its answers can be held back before it has
/// more unanswered actions than the ledger remembers.
struct OutputBuffer: ~Copyable {
    private var bytes = ByteBuffer()
    private var head = 0
    /// Where each answer still queued ends, oldest first (offsets into ``bytes``).
    private var answerEnds: [Int] = []
    private var answerHead = 0

    /// Where the last whole-state frame queued (a welcome, a snapshot) ends.
    private var stateFrameEnd = 0

    /// Bytes not written yet.
    var unsent: Int { bytes.count - head }

    /// How many written bytes are kept before they are let go (``compact()``).
    static var writtenKept: Int { 4096 }

    /// Bytes not written yet that came after the last whole state queued: what a shell that is
    /// still reading a big welcome or snapshot has fallen behind by, since the patches after it
    /// are all it needs once it has read it.
    var unsentAfterState: Int { bytes.count - max(head, stateFrameEnd) }

    /// Answers not completely written yet.
    var answers: Int { answerEnds.count - answerHead }

    var isEmpty: Bool { unsent == 0 }

    mutating func append(_ frame: [UInt8], isAnswer: Bool = false, isWholeState: Bool = false) {
        bytes.append(frame)
        if isAnswer { answerEnds.append(bytes.count) }
        if isWholeState { stateFrameEnd = bytes.count }
    }

    /// Queues an ack (``ScriptFrames/ackFrame(seq:revision:)``), written in place.
    mutating func appendAck(seq: UInt64, revision: UInt64) {
        ScriptFrames.appendAckFrame(seq: seq, revision: revision, to: &bytes)
        answerEnds.append(bytes.count)
    }

    /// Writes as much as the socket takes now; returns false when the socket failed.
    mutating func flush(to fd: Int32) -> Bool {
        while head < bytes.count {
            let sent = send(fd, bytes.unsafeBytes.baseAddress! + head, bytes.count - head, Int32(MSG_NOSIGNAL))
            if sent > 0 {
                head += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else {
                return false
            }
        }
        while answerHead < answerEnds.count, answerEnds[answerHead] <= head { answerHead += 1 }
        compact()
        return true
    }

    private mutating func compact() {
        if head == bytes.count {
            // Everything is written. The written bytes are let go once there are a few KiB of
            // them (or a large buffer to give back), not after every write: emptying an array
            // costs more than a watcher's whole rendition does to queue (callgrind, 100
            // watchers: 12,000 instructions an action).
            guard head >= Self.writtenKept || bytes.capacity > 1 << 20 else { return }
            bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
            head = 0
            // A shell's buffer holds no answers, mostly: emptying an empty array is not free.
            if !answerEnds.isEmpty {
                answerEnds.removeAll(keepingCapacity: true)
                answerHead = 0
            }
            stateFrameEnd = 0
        } else if head > 1 << 16, head > bytes.count / 2 {
            bytes.removeFirst(head)
            answerEnds = answerEnds[answerHead...].map { $0 - head }
            answerHead = 0
            stateFrameEnd = max(0, stateFrameEnd - head)
            head = 0
        }
    }
}

/// One client of a core's engine, as the engine keeps it: its socket, what it has sent that is
/// not yet a whole frame, where its session is, and what waits to be written to it. A class,
/// used on the engine's thread only, so that its buffers are changed in place, never copied.
///
/// Its state is marked `@exclusivity(unchecked)`, as the engine's is (see `CoreEngine`).
final class EngineClient {
    enum Phase {
        /// Connected; its hello is awaited until the timer fires.
        case awaitingHello(EventLoop.Timer?)
        /// Welcomed.
        case welcomed(Hello)
    }

    let number: Int
    let fd: Int32
    @exclusivity(unchecked) var token: UInt64?
    /// For log lines: "pid 4242".
    let peer: String
    @exclusivity(unchecked) var decoder: FrameDecoder
    @exclusivity(unchecked) var phase: Phase
    @exclusivity(unchecked) var output = OutputBuffer()
    /// Its welcome was handed over: renditions, notices and presence counts may follow.
    @exclusivity(unchecked) var greeted = false
    /// The epoll events registered for it.
    @exclusivity(unchecked) var interest: UInt32 = 0
    /// It sent what ends the session (a bye, a bad frame, the end of its stream): nothing more
    /// is read, and it is closed once what it is owed is written.
    @exclusivity(unchecked) var finishing = false
    /// Its stream ended (it closed or half-closed its socket): nothing more is read, and once
    /// the whole frames still waiting in its decoder are handled (they may wait behind the
    /// limit on unanswered actions), its session ends.
    @exclusivity(unchecked) var inputEnded = false
    /// The end of its session was handed over in order (after what came before it): no
    /// rendition, notice or presence count is queued for it from then on. (Until then it gets
    /// them, even if it is already ``finishing``: the rendition of an action it sent before
    /// its `bye` comes before that action's ack.)
    @exclusivity(unchecked) var finished = false
    /// When it must be closed even if it does not read what it is owed (a ``MonotonicClock``
    /// reading: the standard library's instants are reached through its value witnesses, and
    /// a field of one made every field after it be found through the class's metadata).
    @exclusivity(unchecked) var deadline: UInt64?
    /// Renditions are held back: too much waits to be written. It gets a snapshot of the newest
    /// state once it has read enough, then the answers held meanwhile.
    @exclusivity(unchecked) var lagging = false
    /// Whether its request for the whole state (a patch that did not apply) was logged.
    @exclusivity(unchecked) var reportedResync = false
    /// What came for it while lagging, other than renditions (answers, notices, the error or
    /// bye that ends it), in order: none overtakes the rendition of its revision.
    @exclusivity(unchecked) var held: [(bytes: [UInt8], isAnswer: Bool)] = []
    /// Notices among ``held``.
    @exclusivity(unchecked) var heldMessages = 0
    /// A presence count came while lagging: the newest follows its catch-up snapshot.
    @exclusivity(unchecked) var missedPresence = false
    /// Bytes of partial frames it holds against the input budget.
    @exclusivity(unchecked) var budgetHeld = 0
    /// Where the ledger keeps its client id's entry, found at its first action and used at the
    /// next ones for as long as it holds (``ClientLedger/place(of:remembered:)``).
    @exclusivity(unchecked) var ledgerPlace: ClientLedger.Place?
    /// Answers queued in this turn's output and not yet handed to it.
    @exclusivity(unchecked) var owed = 0

    /// The hello's client id as a JSON string, for the journal records of its actions.
    @exclusivity(unchecked) var clientJSON: [UInt8] = []
    /// The hello's client id once it is welcomed (nil before): what every action it sends needs
    /// of its hello, without copying the whole hello out of ``phase``.
    @exclusivity(unchecked) var welcomedClientID: String?
    /// Its ``SessionRecord`` is in the journal (written before its first applied action).
    @exclusivity(unchecked) var sessionJournaled = false
    /// Who it is, as the journal records it: made once, when first needed.
    @exclusivity(unchecked) var session: SessionRecord?
    /// The last turn it was marked in, to be looked at again at the end of it
    /// (``TouchedClients``).
    @exclusivity(unchecked) var markTurn: UInt64 = 0
    /// The last turn it was marked in as owed an answer (``TouchedClients``).
    @exclusivity(unchecked) var answerTurn: UInt64 = 0
    /// Dropped from the engine's table: whoever still holds it must let it be.
    @exclusivity(unchecked) var gone = false

    var hello: Hello? {
        if case let .welcomed(hello) = phase { return hello }
        return nil
    }

    init(number: Int, fd: Int32, peer: String, decoder: FrameDecoder, phase: Phase) {
        self.number = number
        self.fd = fd
        self.peer = peer
        self.decoder = decoder
        self.phase = phase
    }
}

/// What an engine's client port or listener port was woken for.
final class EnginePort: EventHandler, Sendable {
    /// Which client (or 0 for the listening socket).
    let number: Int
    private let handle: (@Sendable (Int, UInt32) -> Void)?
    private weak let sink: (any EngineEventSink)?

    /// A port whose events go to `handle`.
    init(number: Int, handle: @escaping @Sendable (Int, UInt32) -> Void) {
        self.number = number
        self.handle = handle
        sink = nil
    }

    /// A client's port, whose events go straight to the engine (see ``EngineEventSink``).
    init(number: Int, sink: any EngineEventSink) {
        self.number = number
        handle = nil
        self.sink = sink
    }

    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
        if let sink {
            sink.clientEvents(number, events)
        } else {
            handle?(number, events)
        }
    }
}

/// Where a client port's events go: a protocol that is not generic, so that reaching the
/// (generic) engine costs no lookup of its generic type at every event, as a closure made
/// inside it would.
protocol EngineEventSink: AnyObject, Sendable {
    /// A client's socket is ready (called on the engine's loop).
    func clientEvents(_ number: Int, _ events: UInt32)
}
