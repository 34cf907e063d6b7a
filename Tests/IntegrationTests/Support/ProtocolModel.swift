import Wire

/// A broken rule of the protocol, or a wait that ran past its deadline: what was expected and
/// what the connections involved sent and received.
struct ModelViolation: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The rules of PROTOCOL sections 4 to 7, checked at every message a model client reads:
///
/// - the welcome comes first, from the core the client connected to, at a revision no lower than
///   any ack read before the hello went out;
/// - each action sent on a connection gets one answer there, in the order sent (section 4,
///   rule 5); an action is acknowledged with one revision only, whichever connection and core
///   answers (a resend gets the original revision), and no two actions with the same revision;
///   nothing acknowledged is later rejected (section 5, exactly once); a reject gives one of
///   the app's reasons for what the model sends, never `stale_sequence` (the model only sends
///   again actions far younger than the 1024 applied ones the core remembers per client);
/// - shells and watchers: a patch takes the copy from R to R+1 and applies (Wire's own
///   `applyInPlace`, as the shells use), a snapshot jumps ahead, never back; the ack of R
///   arrives once the copy holds R (section 6, rendition before ack, and section 7 with the
///   snapshot that ends a lag); a copy that reaches a revision some client was sent whole
///   equals that state;
/// - scripts get no renditions, notices or presence; nobody gets an `error` (the model sends
///   nothing wrong), nor a `bye` unless the core is stopping;
/// - a connection the core closes after the client's `bye` or half close has had every answer
///   it was owed (section 9); the core closes no other connection unless it was killed.
final class ProtocolModel {
    /// The revision each client action was acknowledged with: client id, then seq.
    private(set) var acknowledged: [String: [UInt64: UInt64]] = [:]
    /// Which action ("client #seq") each acknowledged revision belongs to.
    private var owners: [UInt64: String] = [:]
    private(set) var highestAcknowledged: UInt64 = 0
    /// States seen whole (welcomes and snapshots) by revision, the latest few.
    private var wholeStates: [UInt64: JSONValue] = [:]
    private var wholeStateOrder: [UInt64] = []
    /// The pid of each core of the run, by index.
    var corePids: [Int64] = []
    /// Set while the core is being stopped on purpose: its `bye` is expected then.
    var coreStopping = false

    static let acceptableRejects: Set<String> = ["unknown_item", "bad_position", "empty_text", "overflow"]

    // Counts, for the run's summary.
    private(set) var acks = 0
    private(set) var duplicateAcks = 0
    private(set) var earlierAcks = 0
    private(set) var rejects = 0
    private(set) var renditions = 0
    private(set) var snapshots = 0
    private(set) var welcomes = 0
    /// Finishing sessions the core closed at its closing grace, before they had read all.
    private(set) var cutAtGrace = 0

    /// The core's closing grace (`CoreEngine.Limits.closingGrace`).
    static let closingGrace: Duration = .seconds(2)

    /// Checks one frame that `session` read.
    func received(_ payload: [UInt8], on session: ModelSession) throws {
        if let rendition = RenditionFrame.read(payload) {
            try receivedRendition(rendition, on: session)
            return
        }
        let message: JSONValue
        do {
            message = try WireJSON.decode(JSONValue.self, from: payload)
        } catch {
            throw violation("a frame that is not JSON: \(String(decoding: payload.prefix(300), as: UTF8.self))", session)
        }
        guard let type = message.messageType, let body = message[type] else {
            throw violation("a message that is not an object with one key: \(String(decoding: payload.prefix(300), as: UTF8.self))", session)
        }
        switch type {
        case "welcome": try receivedWelcome(body, on: session)
        case "rendition":
            // Not in the form the fast reader takes; read it the general way.
            guard let revision = body["revision"]?.intValue else { throw violation("a rendition without a revision: \(Self.text(body))", session) }
            if let snapshot = body["snapshot"], body["patch"] == nil {
                try receivedRendition(RenditionFrame(revision: UInt64(revision), content: .snapshot(snapshot)), on: session)
            } else if let patch = body["patch"], body["snapshot"] == nil, let operations = try? patch.decode(as: JSONPatch.self) {
                try receivedRendition(RenditionFrame(revision: UInt64(revision), content: .patch(operations)), on: session)
            } else {
                throw violation("a rendition with neither a patch nor a snapshot (or both): \(String(decoding: payload.prefix(300), as: UTF8.self))", session)
            }
        case "ack":
            guard let seq = body["seq"]?.intValue, let revision = body["revision"]?.intValue, seq > 0, revision >= 0 else {
                throw violation("a malformed ack: \(Self.text(body))", session)
            }
            try receivedAck(seq: UInt64(seq), revision: UInt64(revision), on: session)
        case "reject":
            guard let seq = body["seq"]?.intValue, let code = body["code"]?.stringValue, seq > 0 else {
                throw violation("a malformed reject: \(Self.text(body))", session)
            }
            try receivedReject(seq: UInt64(seq), code: code, message: body["message"]?.stringValue ?? "", on: session)
        case "notice", "presence":
            session.note("<- \(type) \(Self.text(body))")
            guard session.welcomed else { throw violation("a \(type) before the welcome", session) }
            guard session.client.role.receivesRenditions else { throw violation("a script was sent a \(type)", session) }
        case "error":
            session.note("<- error \(Self.text(body))")
            throw violation("the core sent an error: \(Self.text(body))", session)
        case "bye":
            session.note("<- bye \(Self.text(body))")
            guard coreStopping else { throw violation("the core said bye while nobody stopped it: \(Self.text(body))", session) }
        default:
            // A kind of message this client does not know: skipped (PROTOCOL section 3).
            session.note("<- \(type) (unknown, skipped)")
        }
    }

    private func receivedWelcome(_ body: JSONValue, on session: ModelSession) throws {
        guard let revision = body["revision"]?.intValue, let snapshot = body["snapshot"], let pid = body["pid"]?.intValue else {
            throw violation("a malformed welcome: \(String(Self.text(body).prefix(300)))", session)
        }
        session.note("<- welcome r\(revision) from pid \(pid)")
        guard !session.welcomed else { throw violation("a second welcome", session) }
        guard session.answers == 0, session.renditions == 0 else { throw violation("the welcome came after other messages", session) }
        guard pid == corePids[session.core] else {
            throw violation("welcomed by pid \(pid), not by core #\(session.core) (pid \(corePids[session.core])) that it connected to", session)
        }
        guard UInt64(revision) >= session.minimumWelcomeRevision else {
            throw violation("welcomed at r\(revision), below r\(session.minimumWelcomeRevision), a revision already acknowledged before this hello was sent: an acknowledged action was lost", session)
        }
        welcomes += 1
        session.welcomed = true
        session.revision = UInt64(revision)
        session.welcomeRevision = UInt64(revision)
        session.replica = snapshot
        try compareWithWholeState(session, whole: snapshot)
    }

    private func receivedRendition(_ rendition: RenditionFrame, on session: ModelSession) throws {
        renditions += 1
        session.renditions += 1
        guard session.client.role.receivesRenditions else {
            session.note("<- rendition r\(rendition.revision)")
            throw violation("a script was sent a rendition (r\(rendition.revision))", session)
        }
        guard session.welcomed else {
            session.note("<- rendition r\(rendition.revision)")
            throw violation("a rendition (r\(rendition.revision)) before the welcome", session)
        }
        switch rendition.content {
        case let .patch(patch):
            session.note("<- rendition r\(rendition.revision) patch of \(patch.count) operation\(patch.count == 1 ? "" : "s")")
            guard rendition.revision == session.revision + 1 else {
                throw violation("a patch to r\(rendition.revision) while the copy is at r\(session.revision): renditions must go R, R+1, ... (only a snapshot jumps)", session)
            }
            do {
                try session.replica.applyInPlace(patch)
            } catch {
                throw violation("the patch to r\(rendition.revision) does not apply to the copy at r\(session.revision): \(error); patch: \(String(describing: try? WireJSON.string(patch)).prefix(500))", session)
            }
            session.revision = rendition.revision
            try compareWithWholeState(session, whole: nil)
        case let .snapshot(state):
            session.note("<- rendition r\(rendition.revision) snapshot")
            snapshots += 1
            session.snapshots += 1
            guard rendition.revision > session.revision else {
                throw violation("a snapshot of r\(rendition.revision) while the copy is at r\(session.revision): a snapshot is always newer", session)
            }
            session.revision = rendition.revision
            session.replica = state
            try compareWithWholeState(session, whole: state)
        }
    }

    private func receivedAck(seq: UInt64, revision: UInt64, on session: ModelSession) throws {
        session.note("<- ack #\(seq) r\(revision)")
        try answer(seq, on: session)
        acks += 1
        let client = session.client
        if client.role.receivesRenditions, session.revision < revision {
            throw violation("the ack of #\(seq) at r\(revision) came while the copy is at r\(session.revision): the rendition of r\(revision) (or a snapshot at or after it) must come before its ack", session)
        }
        if revision <= session.welcomeRevision {
            // Applied before this connection's hello: a resend answered with its first revision.
            earlierAcks += 1
        }
        if let first = acknowledged[client.id]?[seq] {
            duplicateAcks += 1
            guard first == revision else {
                throw violation("#\(seq) acknowledged at r\(revision), but it was acknowledged at r\(first) before: a resend must get the original revision (or it was applied twice)", session)
            }
        } else {
            let owner = "\(client.name) #\(seq)"
            if let other = owners[revision] {
                throw violation("#\(seq) acknowledged at r\(revision), which was the revision of \(other) already", session)
            }
            owners[revision] = owner
            acknowledged[client.id, default: [:]][seq] = revision
        }
        if case let .reject(code)? = client.answers[seq] {
            throw violation("#\(seq) acknowledged at r\(revision) after it was rejected (\(code)) before; the model never resends a rejected action", session)
        }
        client.answers[seq] = .ack(revision: revision)
        client.unanswered.remove(seq)
        highestAcknowledged = max(highestAcknowledged, revision)
    }

    private func receivedReject(seq: UInt64, code: String, message: String, on session: ModelSession) throws {
        session.note("<- reject #\(seq) \(code)")
        try answer(seq, on: session)
        rejects += 1
        let client = session.client
        if let revision = acknowledged[client.id]?[seq] {
            throw violation("#\(seq) rejected (\(code): \(message)), but it was acknowledged at r\(revision) before: a resend of an applied action gets its original ack", session)
        }
        guard Self.acceptableRejects.contains(code) else {
            throw violation("#\(seq) \(client.action(seq)) rejected with \(code): \(message)", session)
        }
        client.answers[seq] = .reject(code: code)
        client.unanswered.remove(seq)
    }

    /// An answer to `seq` on `session`: the first action sent there that has none yet.
    private func answer(_ seq: UInt64, on session: ModelSession) throws {
        guard session.welcomed else { throw violation("an answer to #\(seq) before the welcome", session) }
        guard let expected = session.firstPending else {
            throw violation("an answer to #\(seq), but every action sent on this connection was answered already", session)
        }
        guard expected == seq else {
            let sent = session.pendingSeqs.contains(seq)
            throw violation("an answer to #\(seq) while #\(expected) waits for its own: \(sent ? "answers must come in the order the actions were sent" : "#\(seq) has no answer due on this connection")", session)
        }
        session.answered()
        session.answers += 1
    }

    /// Compares a copy that reached its revision by patches with the state some client was
    /// sent whole at that revision; remembers a whole state.
    private func compareWithWholeState(_ session: ModelSession, whole: JSONValue?) throws {
        let revision = session.revision
        if let known = wholeStates[revision] {
            guard known == session.replica else {
                throw violation("the copy at r\(revision) differs from the state another client was sent whole at r\(revision)", session)
            }
            return
        }
        guard let whole else { return }
        wholeStates[revision] = whole
        wholeStateOrder.append(revision)
        if wholeStateOrder.count > 48 {
            wholeStates[wholeStateOrder.removeFirst()] = nil
        }
    }

    /// The core's side of `session`'s stream ended.
    func streamEnded(_ session: ModelSession) throws {
        let end = session.io.end.map(\.description) ?? "?"
        session.note("<- end of stream (\(end))")
        defer { session.phase = .ended }
        if session.coreKilled || coreStopping { return }
        if session.io.end != .closed {
            // A client that ended its session gets the core's closing grace to read what it is
            // owed, then the core closes, inside a frame if it must (PROTOCOL section 9). This
            // client's reads can lag that long when the suite holds the test's threads (seen
            // in CI): past the grace, the cut is the core's rule, and the client keeps its
            // unanswered actions for its next connection, as after any lost one.
            if case .finishing = session.phase, let since = session.finishingSince, ContinuousClock.now - since >= Self.closingGrace {
                session.note("cut at the core's closing grace, \(ContinuousClock.now - since) after its \(session.phase)")
                cutAtGrace += 1
                return
            }
            throw violation("the stream ended badly: \(end)", session)
        }
        guard case .finishing = session.phase else {
            throw violation("the core closed a connection that had not ended its session", session)
        }
        guard session.welcomed else { throw violation("the core closed the connection without a welcome", session) }
        if let first = session.firstPending {
            throw violation("the core closed the connection after the client's \(session.phase) with \(session.pendingCount) actions unanswered (the first #\(first) \(session.client.action(first))): it must send what it owes first", session)
        }
    }

    /// A value's JSON, for messages.
    static func text(_ value: JSONValue) -> String {
        (try? WireJSON.string(value)) ?? "\(value)"
    }

    private func violation(_ what: String, _ session: ModelSession) -> ModelViolation {
        ModelViolation("\(session.label): \(what)\n    \(session.diagnosis)")
    }
}
