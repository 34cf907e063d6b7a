import FoundationEssentials
import Glibc
import Wire

/// Applying and journaling: a client's action read by the quick path (``PlainActionFrame``),
/// checked against the quarantine and the app's `admits`, applied through the ``StoreKernel``,
/// its record appended to the journal in memory, its rendition encoded once for every shell,
/// its answer queued, its effects started; the core's own and its effects' actions the same
/// way; and the journal's checks between turns. Nothing here writes to a socket: what it queues
/// goes out at the end of the turn (``endTurn()``), once the journal has it.
extension CoreEngine {
    /// The most common frame, an action in its plain form (``PlainActionFrame``), read without
    /// the generic decoding of every message: only the action itself is parsed, decoded and
    /// applied, and the journal copies its text. Returns false for anything else, which takes
    /// the general path (that also says what is wrong). (The action is not returned: a tuple or
    /// optional of a generic type costs a metadata lookup at every action.)
    func applyPlainAction(_ frame: ArraySlice<UInt8>, from client: EngineClient, clientID: String) -> Bool {
        guard let plain = PlainActionFrame.scan(frame) else { return false }
        // Noted from its reading to its journal record: a crash anywhere in between is known at
        // the next start, and the action refused from then on.
        CrashNote.begin(.action, client: client.clientJSON, seq: plain.seq, bytes: frame[plain.action])
        defer { CrashNote.end() }
        // Read straight from the frame's bytes, without making a JSONValue first, into the
        // engine's tape (unless an app's decoding kept a reader of it).
        if !isKnownUniquelyReferenced(&actionTape) { actionTape = JSONTape() }
        // The frame is a slice of its client's decoder's storage: the tape lets go of it once
        // done, so that the decoder's next bytes go in place rather than into a copy of it.
        // (A tape an app's decoding kept a reader of keeps it, and is not used again.)
        defer {
            if isKnownUniquelyReferenced(&actionTape) { actionTape.forgetText() }
        }
        return applyPlainAction(frame, plain, on: actionTape, from: client, clientID: clientID)
    }

    /// Reads, decodes and applies the plain action with `tape`, handed over once rather than
    /// taken out of the engine (and retained) at each use.
    private func applyPlainAction(_ frame: ArraySlice<UInt8>, _ plain: PlainActionFrame, on tape: JSONTape, from client: EngineClient, clientID: String) -> Bool {
        do {
            try tape.read(frame[plain.action])
        } catch {
            return false
        }
        // The client field is not used: the hello's client id is the one that counts.
        if !quarantine.isEmpty, refuseQuarantined(tape.value, seq: plain.seq, from: client, clientID: clientID) { return true }
        let action: Action
        do {
            action = try tape.decode(Action.self)
        } catch {
            return false
        }
        apply(action, seq: plain.seq, json: frame[plain.action], from: client, clientID: clientID)
        return true
    }

    /// Answers a client's action that crashed the core before with `crashed_core`, unless it
    /// was applied before (a resend, answered with its original ack as always). Returns whether
    /// it was refused.
    func refuseQuarantined(_ action: JSONValue, seq: UInt64, from client: EngineClient, clientID: String) -> Bool {
        guard kernel.ledger.verdict(client: clientID, seq: seq) == .new,
              quarantine.entry(client: clientID, seq: seq, action: action) != nil else { return false }
        if trace {
            log("trace refused from client \(PeerText.forLog(clientID)) #\(seq): it crashed the core before (crashed_core)")
        }
        let refusal = Rejection.crashedCore
        answer(client.number, .reject(Reject(seq: seq, code: refusal.code, message: refusal.message)))
        return true
    }

    func apply(_ action: Action, seq: UInt64, json: ArraySlice<UInt8>? = nil, from client: EngineClient, clientID: String) {
        if json == nil, !quarantine.isEmpty, let value = try? JSONValue(encoding: action),
           refuseQuarantined(value, seq: seq, from: client, clientID: clientID) {
            return
        }
        if let refusal = admits(action) {
            answerRejected(action, from: .client(id: clientID, seq: seq), client: client.number, seq: seq, rejection: refusal)
            return
        }
        apply(action, json: json, from: .client(id: clientID, seq: seq), client: client, seq: seq)
    }

    /// Applies an action and queues what follows: the journal record, the rendition for every
    /// shell, the answer to its sender (if a client sent it), and its effects.
    /// - Parameter json: the action's JSON as the client sent it, when the engine has it: the
    ///   journal writes it as it is, instead of encoding the action again.
    func apply(_ action: Action, json: ArraySlice<UInt8>? = nil, from origin: ActionOrigin, client: EngineClient?, seq: UInt64?) {
        guard !failed else { return }
        guard !trace, receivers.isEmpty else {
            applyShown(action, json: json, from: origin, client: client, seq: seq)
            return
        }
        guard let revision = applyAndRecord(action, json: json, from: origin, client: client, seq: seq) else { return }
        applied(action, revision: revision, json: json, from: origin, client: client, seq: seq)
    }

    /// ``apply(_:json:from:client:seq:)`` while shells watch or the core traces: the state
    /// before is kept, to send the change as a patch and to log it.
    func applyShown(_ action: Action, json: ArraySlice<UInt8>?, from origin: ActionOrigin, client: EngineClient?, seq: UInt64?) {
        let previous = kernel.state
        guard let revision = applyAndRecord(action, json: json, from: origin, client: client, seq: seq) else { return }
        if trace {
            log(TraceLine.applied(action: action, origin: origin, revision: revision, previous: previous, state: kernel.state))
        }
        if !receivers.isEmpty { broadcastRendition(revision: revision, previous: previous) }
        applied(action, revision: revision, json: json, from: origin, client: client, seq: seq)
    }

    /// Applies an action through the kernel and writes its record to the journal; answers a
    /// duplicate or a rejection. Returns the revision, if it was applied and recorded.
    func applyAndRecord(_ action: Action, json: ArraySlice<UInt8>?, from origin: ActionOrigin, client: EngineClient?, seq: UInt64?) -> UInt64? {
        let outcome: ApplyOutcome
        if let client {
            outcome = kernel.apply(action, from: origin, ledgerPlace: &client.ledgerPlace)
        } else {
            outcome = kernel.apply(action, from: origin)
        }
        switch outcome {
        case let .duplicate(revision):
            answerDuplicate(action, from: origin, client: client?.number, seq: seq, revision: revision)
            return nil
        case let .rejected(rejection):
            answerRejected(action, from: origin, client: client?.number, seq: seq, rejection: rejection)
            return nil
        case let .applied(revision):
            // The JSON of the revision before serves no welcome from now on: let it go (at
            // 100,000 items it is as large as the state's JSON).
            if stateCache != nil { stateCache = nil }
            record(action, revision: revision, json: json, origin: origin, client: client)
            // Not recorded: nothing about it may go out.
            return failed ? nil : revision
        }
    }

    /// What follows an applied and recorded action, after its rendition: its entry for
    /// `history --follow`, its ack, its effects.
    func applied(_ action: Action, revision: UInt64, json: ArraySlice<UInt8>?, from origin: ActionOrigin, client: EngineClient?, seq: UInt64?) {
        if !historyFollowers.isEmpty { followHistory(action, revision: revision, json: json, from: origin, client: client) }
        if let client, let seq {
            client.owed += 1
            pending.append(.ack(client: client.number, seq: seq, revision: revision))
        }
        if !kernel.effect.isNone { run(kernel.effect) }
    }

    // The answers other than an ack, apart from ``apply(_:json:from:client:seq:)`` so that an
    // applied action does not pay for their generic messages.

    func answerDuplicate(_ action: Action, from origin: ActionOrigin, client number: Int?, seq: UInt64?, revision: UInt64) {
        if trace { log(TraceLine.duplicate(action: action, origin: origin, revision: revision)) }
        if let number, let seq { answer(number, .ack(Ack(seq: seq, revision: revision))) }
    }

    func answerRejected(_ action: Action, from origin: ActionOrigin, client number: Int?, seq: UInt64?, rejection: Rejection) {
        if trace {
            log(TraceLine.rejected(action: action, origin: origin, rejection: rejection))
        } else if origin.isEffect {
            log("an effect's action was rejected: \(PeerText.forLog(rejection.message)) (\(PeerText.forLog(rejection.code)))")
        }
        if let number, let seq { answer(number, .reject(Reject(seq: seq, code: rejection.code, message: rejection.message))) }
    }

    /// Appends the record of an action just applied to the journal (in memory; it is written
    /// at the end of the turn).
    func record(_ action: Action, revision: UInt64, json: ArraySlice<UInt8>?, origin: ActionOrigin, client engineClient: EngineClient?) {
        guard let journal else { return }
        let at = kernel.moment.timeIntervalSince1970
        if let engineClient, !engineClient.sessionJournaled { journalSession(of: engineClient, in: journal) }
        guard let json, case let .client(client, seq) = origin else {
            recordEncoded(action, revision: revision, at: at, origin: origin, in: journal)
            return
        }
        // ``JournalEntry``'s JSON, with the action's text as the client sent it, written
        // straight into the journal's buffer. (No closure here: one formed in the engine
        // checks its isolation when called.)
        var clientJSON = engineClient?.clientJSON ?? []
        if clientJSON.isEmpty { clientJSON = JSONFragment.string(client) }
        journal.appendEntry(action: json, at: at, client: clientJSON, revision: revision, seq: seq)
    }

    /// The record of an action the engine has no text of (the core's own, an effect's): its
    /// ``JournalEntry`` encoded. Apart from ``record(_:revision:json:origin:client:)``, whose
    /// every call would otherwise look up `JournalEntry`'s metadata.
    func recordEncoded(_ action: Action, revision: UInt64, at: Double, origin: ActionOrigin, in journal: JournalWriter<State>) {
        do {
            let record = try WireJSON.encode(JournalEntry(revision: revision, at: at, origin: origin, action: action))
            journal.append(revision: revision, record: DurableRecord.encode(record))
        } catch {
            // Applied, and not recordable (an effect's action holding a NaN, say): nothing more
            // may be acknowledged, as when the journal cannot be written.
            let reason = "revision \(revision) could not be encoded for the journal: \(error)"
            log("the journal cannot be written (\(reason)); stopping so that nothing unrecorded is acknowledged")
            fail(JournalFailure(reason: reason))
        }
    }

    /// Writes who `client` is to the journal, before the record of its first applied action:
    /// once per connection, so that no action's record pays for it.
    func journalSession(of client: EngineClient, in journal: JournalWriter<State>) {
        client.sessionJournaled = true
        guard let record = sessionRecord(of: client), record.session.at.isFinite else { return }
        journal.openSession(client.number, record: record.text)
    }

    /// The rendition of an applied action for every shell: a patch from the state before (the
    /// whole state if the patch cannot be made), encoded once.
    func broadcastRendition(revision: UInt64, previous: State) {
        var content = Rendition<State>.Content.snapshot(kernel.state)
        do {
            let patch = try JSONPatch(from: previous, to: kernel.state)
            // Written by hand, as the general encoder would (which says what is wrong if not).
            if let frame = RenditionFrame.patchFrame(revision: revision, patch: patch) {
                pending.append(.rendition(frame))
                return
            }
            content = .patch(patch)
        } catch {
            log("could not diff revision \(revision) (\(error)); sending a snapshot")
        }
        pending.append(.rendition(ServerMessage<State>.rendition(Rendition(revision: revision, content: content)).frame()))
    }

    func run(_ effect: Effect<Action>) {
        for step in effect.steps {
            switch step {
            case let .send(next):
                applyOwn(next, from: .effect(nil))
            case let .work(work):
                _ = runtime.start(work)
            case let .cancel(ids):
                runtime.cancel(ids)
            case let .timer(timer):
                runtime.arm(timer)
            }
        }
    }

    /// An action an effect sent, or a durable timer's firing: applied as the core's own. A
    /// firing whose timer is no longer scheduled for that deadline (cancelled or replaced
    /// while the action was on its way here) is dropped.
    func applyEffectAction(_ action: Action, from origin: ActionOrigin) {
        if case let .timer(id, deadline) = origin, !kernel.timers.isScheduled(id, deadline: deadline) { return }
        applyOwn(action, from: origin)
        touchTurn()
    }

    /// Applies an action of the core's own (an effect's, or one it sends itself), noted for a
    /// crash as clients' actions are; one that crashed the core before is dropped.
    func applyOwn(_ action: Action, from origin: ActionOrigin) {
        let json = (try? WireJSON.encode(action)) ?? []
        if !quarantine.isEmpty, let value = try? JSONParser().parse(json), let entry = quarantine.entry(ownAction: value) {
            log("dropped an action of the core's own that crashed it before: \(entry.summary)")
            return
        }
        CrashNote.begin(.own, client: [], seq: nil, bytes: json[...])
        apply(action, from: origin, client: nil, seq: nil)
        CrashNote.end()
    }

    // MARK: What is queued for the clients

    func broadcastNotice(_ text: String) {
        pending.append(.notice(ServerMessage<State>.notice(Notice(text: text)).frame()))
        touchTurn()
    }

    func announcePresence(except number: Int?) {
        pending.append(.presence(except: number))
    }

    func answer(_ number: Int, _ message: ServerMessage<State>) {
        owe(number)
        pending.append(.frame(client: number, bytes: message.frame(), isAnswer: true))
    }

    func owe(_ number: Int) {
        clients[number]?.owed += 1
    }

    // MARK: The journal

    /// Under `batch` and `never`, the journal checks that its file is still in place within
    /// 100 ms of a write, also when nothing more is written.
    func armJournalCheck() {
        guard let journal, journal.needsCheck, !journalCheckArmed else { return }
        journalCheckArmed = true
        loop.schedule(after: FsyncPolicy.batchInterval) { [weak self] in
            self?.onLoopThread { $0.checkJournal() }
        }
    }

    func checkJournal() {
        journalCheckArmed = false
        commitJournal()
    }

    /// Writes what the journal holds (and syncs it under `always`), then arms its check.
    /// - Returns: false when there is no journal to write or writing failed (the core is
    ///   ending: ``fail(_:)`` has run).
    @discardableResult
    func commitJournal() -> Bool {
        guard let journal, !failed else { return false }
        do {
            try journal.commit { snapshotContent() }
        } catch {
            fail(error)
            return false
        }
        armJournalCheck()
        return true
    }

    /// The state now, for a snapshot (the journal asks for it only when it needs one).
    func snapshotContent() -> SnapshotContent<State> {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var timers: [SnapshotTimer]?
        do {
            timers = try kernel.timers.snapshotTimers()
        } catch {
            log("a durable timer's action cannot be encoded for the snapshot (\(error)); it will not survive a restart of the core")
        }
        return SnapshotContent(revision: kernel.revision, at: Double(now.tv_sec), state: kernel.state, ledger: kernel.ledger, timers: timers)
    }

    func fail(_ error: JournalFailure) {
        failed = true
        pending.removeAll()
        journalFailed(error)
    }
}
