import Wire

/// A client of the protocol model: one client id, kept across its connections, with its
/// actions numbered on from one connection to the next (PROTOCOL section 9, reconnecting).
final class ModelClient {
    enum Role: String {
        case shell, watcher, script

        var receivesRenditions: Bool { self != .script }
    }

    enum Answer: Equatable {
        case ack(revision: UInt64)
        case reject(code: String)
    }

    let id: String
    /// A short name for messages: `s1`, `w2`, `p1`.
    let name: String
    let role: Role
    /// The JSON of every action it numbered, by seq (a resend sends the same text).
    private(set) var actions: [UInt64: String] = [:]
    private(set) var nextSeq: UInt64 = 1
    /// Actions numbered and not answered on any connection yet: to send again on the next one.
    var unanswered: Set<UInt64> = []
    /// The last answer to each action.
    var answers: [UInt64: Answer] = [:]
    /// Its connections, oldest first; the last one is the current one.
    private(set) var sessions: [ModelSession] = []

    init(id: String, name: String, role: Role) {
        self.id = id
        self.name = name
        self.role = role
    }

    var session: ModelSession? { sessions.last }

    /// Its current connection, if that one may still be given actions.
    var liveSession: ModelSession? {
        guard let session, session.phase == .live else { return nil }
        return session
    }

    /// Numbers a new action.
    func number(_ json: String) -> UInt64 {
        let seq = nextSeq
        nextSeq += 1
        actions[seq] = json
        unanswered.insert(seq)
        return seq
    }

    func action(_ seq: UInt64) -> String {
        actions[seq]!
    }

    /// The frame of action `seq`, as first sent.
    func frame(_ seq: UInt64) -> [UInt8] {
        try! Frame.encode(Array(#"{"action":{"client":"\#(id)","seq":\#(seq),"action":\#(actions[seq]!)}}"#.utf8))
    }

    var helloFrame: [UInt8] {
        try! Frame.encode(Array(#"{"hello":{"protocol":1,"role":"\#(role.rawValue)","client":"\#(id)","name":"protocol model \#(name)"}}"#.utf8))
    }

    static let byeFrame = try! Frame.encode(Array(#"{"bye":{}}"#.utf8))

    func add(_ session: ModelSession) {
        sessions.append(session)
    }

    /// Seqs answered with an ack, in order.
    var acknowledged: [UInt64] {
        answers.compactMap { seq, answer in
            if case .ack = answer { return seq }
            return nil
        }.sorted()
    }
}

/// One connection of a model client, and what the model knows of it: where its copy of the
/// state stands, which of the actions sent on it await their answer, in order.
final class ModelSession {
    enum Phase: Equatable, CustomStringConvertible {
        /// Open, and may be given actions.
        case live
        /// It said bye or half-closed: it waits for what it is owed, then the core closes it.
        case finishing(String)
        /// Closed by the client without waiting for anything.
        case dropped
        /// The core's side ended.
        case ended

        var description: String {
            switch self {
            case .live: return "live"
            case let .finishing(how): return "finishing (\(how))"
            case .dropped: return "dropped"
            case .ended: return "ended"
            }
        }
    }

    /// Numbered across the whole run, for messages: `s1/3` is the third connection made in
    /// the run, by shell s1.
    let number: Int
    let client: ModelClient
    let io: ModelConnection
    /// The core (its index in the run) this connection was made to.
    let core: Int
    var phase: Phase = .live {
        didSet {
            if case .finishing = phase, finishingSince == nil { finishingSince = .now }
        }
    }
    /// When it said bye or half-closed: from then on the core gives it its closing grace
    /// (2 s) to read what it is owed.
    var finishingSince: ContinuousClock.Instant?
    /// Not read while set (a slow client).
    var paused = false
    /// The core it talked to was killed: its stream may end anywhere, answers may be missing.
    var coreKilled = false
    /// The welcome's revision may not be below this: every ack the model had read before the
    /// hello went out was committed.
    let minimumWelcomeRevision: UInt64

    var welcomed = false
    /// The revision of its copy (the welcome's, then each rendition's); for a script, the
    /// welcome's.
    var revision: UInt64 = 0
    var welcomeRevision: UInt64 = 0
    /// Its copy of the state (shells and watchers).
    var replica: JSONValue = .null
    /// Seqs sent on it that have no answer yet, in the order they were sent.
    var pending: [UInt64] = []
    private var pendingStart = 0

    // What it received, for the run's summary.
    var renditions = 0
    var snapshots = 0
    var answers = 0

    /// The last things sent and received, for failure messages.
    private(set) var transcript: [String] = []
    private var transcriptDropped = 0

    init(number: Int, client: ModelClient, io: ModelConnection, core: Int, minimumWelcomeRevision: UInt64) {
        self.number = number
        self.client = client
        self.io = io
        self.core = core
        self.minimumWelcomeRevision = minimumWelcomeRevision
    }

    var label: String { "\(client.name)/\(number)" }

    /// Still read by the model: live, or finishing.
    var isOpen: Bool {
        if case .finishing = phase { return true }
        return phase == .live
    }

    var firstPending: UInt64? { pendingStart < pending.count ? pending[pendingStart] : nil }

    var pendingCount: Int { pending.count - pendingStart }

    var pendingSeqs: ArraySlice<UInt64> { pending[pendingStart...] }

    func send(_ seq: UInt64) {
        pending.append(seq)
    }

    func answered() {
        pendingStart += 1
        if pendingStart > 1024, pendingStart * 2 > pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }

    func note(_ line: String) {
        transcript.append(line)
        if transcript.count > 80 {
            transcript.removeFirst(40)
            transcriptDropped += 40
        }
    }

    /// Its state in one line, and its last exchanges.
    var diagnosis: String {
        var text = "\(label) (\(client.role.rawValue) \(client.id), to core #\(core), \(phase)\(paused ? ", not reading" : "")\(coreKilled ? ", its core killed" : "")): "
        text += welcomed ? "copy at r\(revision)" : "not welcomed"
        text += ", \(pendingCount) unanswered"
        if let first = firstPending { text += " (#\(first)...#\(pending.last!))" }
        text += ", \(renditions) renditions (\(snapshots) snapshots), \(answers) answers, \(io.bytesSent) bytes sent (\(io.unsent) unsent), \(io.bytesReceived) received"
        if let end = io.end { text += ", stream \(end)" }
        text += "\n      last exchanges\(transcriptDropped > 0 ? " (\(transcriptDropped) earlier ones not kept)" : ""):"
        for line in transcript.suffix(30) { text += "\n        " + line }
        return text
    }
}
