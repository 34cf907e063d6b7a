import ActorNode
import Glibc
import Wire

/// One seed's run of the protocol model: a real `core-daemon --trace` in a sandbox, and a few
/// clients (shells, watchers, scripts) speaking raw frames to it, each step of the run chosen by
/// one seeded generator:
///
/// - pipelining: one write holding several actions, sometimes hundreds (a flood, whose
///   renditions make whoever does not keep up fall behind, PROTOCOL section 7);
/// - `hello`, actions and `bye` in one write, or `hello` and actions and then a half close;
/// - slow reading: a client not read for several steps;
/// - dropping a connection without waiting for answers, then reconnecting with the same client
///   id and sending the unanswered actions again with their original seqs (section 9);
/// - sending an acknowledged action again (its original ack must come back);
/// - SIGKILLing the core and starting another on the same socket and state directory.
///
/// Every message read is checked by ``ProtocolModel`` at once. At checkpoints, and at the end,
/// the run lets everything settle: every action must be answered and every shell's and
/// watcher's copy must equal `shell-client state --json`, within a deadline. At the end the
/// core is stopped and its traces (``AppliedHistory``) must agree with what the clients were
/// told: every action applied at most once, every ack naming the revision that applied it.
///
/// The seed fixes every choice; the timing is the machine's, so a seed replays the same plan,
/// not always the same interleaving.
final class ModelRun {
    let seed: UInt64
    private var random: SeededRandom
    private let sandbox: Sandbox
    private let model = ProtocolModel()
    private var actions: ModelActions
    private var cores: [Started] = []
    private let coreArguments: [String]
    private var clients: [ModelClient] = []
    private var sessions: [ModelSession] = []
    /// What the run did, step by step, for failure messages.
    private(set) var steps: [String] = []
    private var killsLeft: Int
    private let stepCount: Int
    private let preload: Int
    /// The clients the steps choose from: all but the preloading script.
    private let actors: Int

    /// How long an answer, or a copy catching up, may take on a loaded machine.
    static let answerTimeout: Duration = .seconds(15)

    // What the run did, for its summary.
    private var counts: [String: Int] = [:]

    init(seed: UInt64, sandbox: Sandbox) {
        self.seed = seed
        self.sandbox = sandbox
        var random = SeededRandom(seed: seed)
        let fsync = ["never", "never", "batch", "always"][Int(random.next() % 4)]
        coreArguments = ["--trace", "--fsync", fsync]
        switch random.next() % 10 {
        case 0 ..< 4: preload = 0
        case 4 ..< 7: preload = 40 + Int(random.next() % 120)
        default: preload = 250 + Int(random.next() % 200)
        }
        actions = ModelActions(preloaded: Int64(preload))
        let shells = 1 + Int(random.next() % 2)
        let watchers = Int(random.next() % 3)
        let scripts = 1 + Int(random.next() % 2)
        for (role, letter, count) in [(ModelClient.Role.shell, "s", shells), (.watcher, "w", watchers), (.script, "p", scripts)] where count > 0 {
            for number in 1 ... count {
                clients.append(ModelClient(id: "model-\(seed)-\(letter)\(number)", name: "\(letter)\(number)", role: role))
            }
        }
        actors = clients.count
        stepCount = 25 + Int(random.next() % 30)
        killsLeft = [0, 1, 1, 2, 3][Int(random.next() % 5)]
        self.random = random
        steps.append("core-daemon \(coreArguments.joined(separator: " ")); preload \(preload) items; clients \(clients.map { "\($0.name) (\($0.role.rawValue))" }.joined(separator: ", ")); \(stepCount) steps, up to \(killsLeft) kills")
    }

    /// How to run this seed alone.
    var replayHint: String {
        "replay: CAMA_MODEL_SEED=\(seed) swift test --filter ProtocolModel"
    }

    /// The last steps of the run, for a failure message.
    var recentSteps: String {
        let shown = steps.suffix(40)
        return "steps\(steps.count > shown.count ? " (the last \(shown.count) of \(steps.count))" : ""):\n" + shown.map { "  " + $0 }.joined(separator: "\n")
    }

    /// Runs the seed; returns a summary. Throws a ``ModelViolation`` at the first broken rule.
    func run() async throws -> String {
        let started = ContinuousClock.now
        try await startCore()
        if preload > 0 {
            let loader = ModelClient(id: "model-\(seed)-preload", name: "p0", role: .script)
            clients.append(loader)
            let texts = (1 ... preload).map { #"{"add":{"text":"preloaded \#($0)"}}"# }
            let session = try await connect(loader, newActions: texts, ending: .bye, waitForWelcome: false)
            try await waitUntil("the preloading script's \(preload) adds are answered and its connection closed") { session.phase == .ended }
        }
        for step in 1 ... stepCount {
            let roll = random.next() % 100
            if roll < 5, killsLeft > 0 {
                try await killCore(step: step)
            } else if roll < 10 {
                try await checkpoint("step \(step)")
            } else if roll < 18 {
                try await lagEpisode(step: step)
            } else {
                let client = clients[Int(random.next() % UInt64(actors))]
                try await act(client, step: step)
            }
            try pump()
        }
        try await checkpoint("the end")
        try await stopCore()
        try checkTraces()
        let elapsed = ContinuousClock.now - started
        let tenths = elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s, \(coreArguments[1 ... 2].joined(separator: " ")), preload \(preload), \(clients.count) clients, \(sessions.count) connections; "
            + "\(model.acks) acks (\(model.earlierAcks) of actions applied before the connection, \(model.duplicateAcks) seen before), \(model.rejects) rejects, \(model.renditions) renditions (\(model.snapshots) snapshots)\(model.cutAtGrace > 0 ? ", \(model.cutAtGrace) cut at the closing grace" : ""); "
            + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    private func count(_ what: String) {
        counts[what, default: 0] += 1
    }

    private func note(_ line: String) {
        steps.append(line)
    }

    // MARK: Steps

    private enum Ending {
        case live, bye, halfClose
    }

    /// One step of one client.
    private func act(_ client: ModelClient, step: Int) async throws {
        guard let session = client.liveSession else {
            // Its last connection ended (bye, half close, drop, a killed core): a new one, with
            // the unanswered actions sent again first.
            let newCount = drawBatchSize(client)
            let ending: Ending = switch random.next() % 100 {
            case 0 ..< 18: .bye
            case 18 ..< 28: .halfClose
            default: .live
            }
            let waitForWelcome = random.next() % 4 == 0
            let pauseAfter = random.next() % 8 == 0
            var texts: [String] = []
            for _ in 0 ..< newCount.count { texts.append(actions.draw(&random, label: "\(client.name)", heavy: newCount.heavy)) }
            try await waitForEnd(of: client.session)
            note("step \(step): \(client.name) connects: hello, \(client.unanswered.count) resent, \(texts.count) new\(newCount.heavy ? " (heavy)" : ""), \(ending)\(waitForWelcome ? ", the welcome awaited first" : ", all in one write")\(pauseAfter && ending == .live ? ", then not read" : "")")
            let session = try await connect(client, newActions: texts, ending: ending, waitForWelcome: waitForWelcome)
            if pauseAfter, ending == .live {
                session.paused = true
                count("paused readers")
            }
            return
        }
        let roll = random.next() % 100
        // Drawn whatever the step, so that the plan does not depend on the timing.
        let batch = drawBatchSize(client)
        let before = random.next() % 2 == 0
        let moment = Int(random.next() % 40)
        switch roll {
        case 0 ..< 36:
            let seqs = send(batch, on: session)
            note("step \(step): \(session.label) sends \(describe(seqs))\(batch.heavy ? " (heavy)" : "")")
        case 36 ..< 46:
            session.paused.toggle()
            note("step \(step): \(session.label) \(session.paused ? "stops reading" : "reads again")")
            if session.paused { count("paused readers") }
        case 46 ..< 54:
            let seqs = before ? send(batch, on: session) : []
            if moment % 2 == 0 {
                // Some answers read first, or none.
                let answers = session.answers + moment / 2
                try await pumpUntil(atMost: .seconds(2)) { session.answers >= answers || session.pendingCount == 0 }
            }
            session.io.close()
            session.phase = .dropped
            session.paused = false
            count("drops")
            note("step \(step): \(session.label) \(seqs.isEmpty ? "" : "sends \(describe(seqs)) and ")drops its connection with \(session.pendingCount) unanswered")
        case 54 ..< 60:
            let seqs = before ? send(batch, on: session, flush: false) : []
            session.io.queue(ModelClient.byeFrame)
            session.phase = .finishing("bye")
            session.paused = false
            count("byes")
            note("step \(step): \(session.label) \(seqs.isEmpty ? "" : "sends \(describe(seqs)) and ")says bye in the same write")
        case 60 ..< 66:
            let seqs = before ? send(batch, on: session, flush: false) : []
            session.io.halfCloseWhenDone()
            session.phase = .finishing("half close")
            session.paused = false
            count("half closes")
            note("step \(step): \(session.label) \(seqs.isEmpty ? "" : "sends \(describe(seqs)) and ")half-closes")
        case 66 ..< 71:
            let acknowledged = client.acknowledged.suffix(100)
            guard !acknowledged.isEmpty else {
                note("step \(step): \(session.label) has nothing acknowledged to send again")
                return
            }
            let seq = acknowledged[acknowledged.startIndex + moment % acknowledged.count]
            session.io.queue(client.frame(seq))
            session.send(seq)
            session.note("-> #\(seq) again \(client.action(seq).prefix(60))")
            count("acknowledged actions sent again")
            note("step \(step): \(session.label) sends #\(seq) again, acknowledged before")
        default:
            session.paused = false
            note("step \(step): \(session.label) waits for its \(session.pendingCount) answers")
            try await waitUntil("\(session.label)'s actions are all answered") { session.pendingCount == 0 }
        }
        try pump()
    }

    /// A shell or watcher stops reading while another client (or itself) floods the core with
    /// long texts, so that the core's output to it passes the limits of PROTOCOL section 7: it
    /// falls behind, its renditions are skipped, and once it reads again (now, or at a later
    /// step, on a core that may have gone quiet) it must be caught up with a snapshot and then
    /// the answers held for it.
    private func lagEpisode(step: Int) async throws {
        let receivers = sessions.filter { $0.phase == .live && $0.client.role.receivesRenditions }
        let senders = sessions.filter { $0.phase == .live && $0.client.role != .watcher }
        let victimRoll = Int(random.next() % 1000)
        let senderRoll = Int(random.next() % 1000)
        let size = 200 + Int(random.next() % 250)
        let readAgain = random.next() % 2 == 0
        guard !receivers.isEmpty else {
            note("step \(step): no shell or watcher is connected to fall behind")
            return
        }
        let victim = receivers[victimRoll % receivers.count]
        let others = senders.filter { $0 !== victim }
        let sender = others.isEmpty ? victim : others[senderRoll % others.count]
        victim.paused = true
        if sender !== victim { sender.paused = false }
        count("lag episodes")
        let seqs = send((size, true), on: sender)
        note("step \(step): \(victim.label) stops reading while \(sender.label) sends \(describe(seqs)) with long texts\(readAgain ? "; then it reads again" : "")")
        if sender !== victim {
            try await waitUntil("\(sender.label)'s flood is answered") { sender.pendingCount == 0 }
        }
        if readAgain { victim.paused = false }
    }

    /// How many new actions a step sends: mostly a few, sometimes dozens, sometimes a flood.
    private func drawBatchSize(_ client: ModelClient) -> (count: Int, heavy: Bool) {
        let roll = random.next() % 100
        let size = Int(random.next() % 400)
        if client.role == .watcher { return (roll < 50 ? 0 : 1 + size % 3, false) }
        switch roll {
        case 0 ..< 12: return (0, false)
        case 12 ..< 60: return (1 + size % 4, false)
        case 60 ..< 86: return (5 + size % 40, false)
        default: return (100 + size % 300, roll % 2 == 0)
        }
    }

    /// Numbers and queues new actions on `session`, in one write.
    private func send(_ batch: (count: Int, heavy: Bool), on session: ModelSession, flush: Bool = true) -> [UInt64] {
        var bytes: [UInt8] = []
        var seqs: [UInt64] = []
        for _ in 0 ..< batch.count {
            let seq = session.client.number(actions.draw(&random, label: session.client.name, heavy: batch.heavy))
            bytes += session.client.frame(seq)
            session.send(seq)
            seqs.append(seq)
        }
        if seqs.count > 0 { session.note("-> \(describe(seqs)) in one write\(seqs.count == 1 ? ": " + session.client.action(seqs[0]).prefix(80) : "")") }
        if batch.count >= 100 { count("floods") }
        session.io.queue(bytes)
        if flush { _ = session.io.flush() }
        return seqs
    }

    private func describe(_ seqs: [UInt64]) -> String {
        switch seqs.count {
        case 0: return "nothing"
        case 1: return "#\(seqs[0])"
        default: return "#\(seqs.first!)...#\(seqs.last!) (\(seqs.count) actions)"
        }
    }

    /// A new connection for `client`: its hello, its unanswered actions again with their seqs,
    /// `newActions`, and the ending, in one write (after the welcome if `waitForWelcome`).
    @discardableResult
    private func connect(_ client: ModelClient, newActions: [String], ending: Ending, waitForWelcome: Bool) async throws -> ModelSession {
        try await waitForEnd(of: client.session)
        let deadline = ContinuousClock.now + Self.answerTimeout
        var opened = ModelConnection.open(sandbox.socket)
        while opened == nil {
            guard ContinuousClock.now < deadline else { throw ModelViolation("could not connect to \(sandbox.socket) within \(Self.answerTimeout)") }
            try await Task.sleep(for: .milliseconds(10))
            opened = ModelConnection.open(sandbox.socket)
        }
        let session = ModelSession(number: sessions.count + 1, client: client, io: opened!, core: cores.count - 1, minimumWelcomeRevision: model.highestAcknowledged)
        client.add(session)
        sessions.append(session)
        var bytes = client.helloFrame
        let resent = client.unanswered.sorted()
        for seq in resent {
            bytes += client.frame(seq)
            session.send(seq)
        }
        if !resent.isEmpty { count("resends after a lost connection") }
        session.note("-> hello\(resent.isEmpty ? "" : " and \(describe(resent)) again")")
        if waitForWelcome {
            session.io.queue(bytes)
            bytes = []
            try await waitUntil("\(session.label) is welcomed") { session.welcomed }
        }
        var seqs: [UInt64] = []
        for json in newActions {
            let seq = client.number(json)
            bytes += client.frame(seq)
            session.send(seq)
            seqs.append(seq)
        }
        if !seqs.isEmpty { session.note("-> \(describe(seqs))\(seqs.count == 1 ? ": " + json(seqs[0], of: client) : "")") }
        switch ending {
        case .live:
            session.io.queue(bytes)
        case .bye:
            session.io.queue(bytes + ModelClient.byeFrame)
            session.phase = .finishing("bye")
            session.note("-> bye")
            count(waitForWelcome ? "byes" : "hello-to-bye writes")
        case .halfClose:
            session.io.queue(bytes)
            session.io.halfCloseWhenDone()
            session.phase = .finishing("half close")
            session.note("-> (half close)")
            count(waitForWelcome ? "half closes" : "hello-to-half-close writes")
        }
        _ = session.io.flush()
        try pump()
        return session
    }

    /// Waits until the core closes `session` if it is finishing (it said bye or half-closed).
    private func waitForEnd(of session: ModelSession?) async throws {
        guard let session, case .finishing = session.phase else { return }
        try await waitUntil("\(session.label) is closed by the core after its \(session.phase)") { session.phase == .ended }
    }

    private func json(_ seq: UInt64, of client: ModelClient) -> String {
        String(client.action(seq).prefix(80))
    }

    // MARK: The core

    /// Starts `core-daemon` (the one built beside the tests, or `$CAMA_MODEL_CORE`, to see
    /// whether a seed catches a bug of another build) on the sandbox's socket and state.
    private func startCore() async throws {
        let core: Started
        if let other = getenv("CAMA_MODEL_CORE").map({ String(cString: $0) }), !other.isEmpty {
            core = try sandbox.start(executable: other, name: "core-daemon", ["--socket", sandbox.socket] + coreArguments)
            let socket = sandbox.socket
            try await waitUntil("\(other) serves \(socket)", timeout: .seconds(20)) { UnixSocket.isServing(socket) || core.process.termination != nil }
        } else {
            core = try await sandbox.startCore(coreArguments)
        }
        guard core.process.termination == nil else {
            throw ModelViolation("core-daemon \(coreArguments.joined(separator: " ")) did not start: \(core.errorOutput.suffix(2000))")
        }
        cores.append(core)
        model.corePids.append(Int64(core.pid))
    }

    /// SIGKILLs the core at a random moment of some traffic, and starts another on the same
    /// socket and state directory. Every connection ends; each client reconnects at its next
    /// step (or at the next checkpoint) and sends its unanswered actions again.
    private func killCore(step: Int) async throws {
        killsLeft -= 1
        let live = sessions.filter { $0.phase == .live }
        let sender = live.isEmpty ? nil : live[Int(random.next() % UInt64(live.count))]
        let batch = (count: 5 + Int(random.next() % 300), heavy: random.next() % 2 == 0)
        // Its answers unread when the core dies: many actions applied, and answered only
        // when they are sent again.
        let senderDeaf = random.next() % 2 == 0
        let moment = Int(random.next() % 150)
        var sent: [UInt64] = []
        if let sender {
            sent = send(batch, on: sender)
            if senderDeaf { sender.paused = true }
        }
        // The moment: once the core has traced `moment` more actions (about 150 bytes of its
        // log each), or 2 s.
        let log = cores.last!.errorPath
        let logBefore = fileSize(log)
        try await pumpUntil(atMost: .seconds(2)) { fileSize(log) >= logBefore + moment * 150 }
        let core = cores.last!
        core.process.send(SIGKILL)
        _ = await core.process.waitForExit()
        count("kills")
        note("step \(step): \(sender.map { "\($0.label) sends \(describe(sent))\(senderDeaf ? " and stops reading" : ""); " } ?? "")core #\(cores.count - 1) (pid \(core.pid)) SIGKILLed about \(moment) actions later")
        if let sender, senderDeaf, sender.phase == .live {
            // It never reads what the core sent before it died.
            sender.io.close()
            sender.phase = .dropped
            sender.paused = false
        }
        for session in sessions where session.isOpen {
            session.coreKilled = true
            session.paused = false
        }
        try await waitUntil("every connection to the killed core sees its end", timeout: .seconds(10)) { !sessions.contains { $0.isOpen } }
        try await startCore()
        note("step \(step): core #\(cores.count - 1) (pid \(cores.last!.pid)) started on the same socket and state directory")
        // Some clients reconnect at once, sending their unanswered actions again (and maybe
        // new ones) right after the hello; the others at their next step.
        for client in clients[0 ..< actors] {
            let now = random.next() % 2 == 0
            let batch = drawBatchSize(client)
            let texts = (0 ..< batch.count).map { _ in actions.draw(&random, label: client.name, heavy: batch.heavy) }
            guard now, client.liveSession == nil else { continue }
            note("step \(step): \(client.name) reconnects at once: hello, \(client.unanswered.count) resent, \(texts.count) new, all in one write")
            try await connect(client, newActions: texts, ending: .live, waitForWelcome: false)
        }
    }

    private func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Stops the core cleanly (SIGTERM), expecting its bye on every connection.
    private func stopCore() async throws {
        let core = cores.last!
        model.coreStopping = true
        core.process.send(SIGTERM)
        try await waitUntil("every connection is closed by the stopping core", timeout: .seconds(20)) { !sessions.contains { $0.isOpen } }
        guard let termination = await core.process.waitForExit(timeout: .seconds(20)) else {
            throw ModelViolation("the core did not stop within 20 s of SIGTERM")
        }
        guard termination == .exited(0) else {
            throw ModelViolation("the core stopped with \(termination): \(core.errorOutput.suffix(2000))")
        }
    }

    // MARK: Settling and checking

    /// Lets everything settle and checks that it did: every client reads again, every
    /// connection that said bye or half-closed is closed once answered, every client with
    /// unanswered actions reconnects and sends them again, every action is answered, and every
    /// shell's and watcher's copy equals `shell-client state --json`.
    private func checkpoint(_ label: String) async throws {
        count("checkpoints")
        note("\(label): checkpoint")
        for session in sessions where session.isOpen { session.paused = false }
        try await waitUntil("every connection that said bye or half-closed is closed by the core, all answered") {
            !sessions.contains { if case .finishing = $0.phase { return true } else { return false } }
        }
        for client in clients where client.liveSession == nil && !client.unanswered.isEmpty {
            note("\(label): \(client.name) reconnects to send \(client.unanswered.count) unanswered actions again")
            try await connect(client, newActions: [], ending: .live, waitForWelcome: false)
        }
        try await waitUntil("every action sent is answered") {
            !sessions.contains { $0.phase == .live && ($0.pendingCount > 0 || $0.io.unsent > 0) }
        }
        for client in clients where !client.unanswered.isEmpty {
            throw ModelViolation("\(client.name) has \(client.unanswered.count) actions unanswered (\(client.unanswered.sorted().prefix(10))) though none of its connections waits for an answer")
        }
        let receivers = sessions.filter { $0.phase == .live && $0.client.role.receivesRenditions }
        for attempt in 1 ... 5 {
            let (revision, state) = try await coreState()
            guard revision >= model.highestAcknowledged else {
                throw ModelViolation("shell-client state --json says r\(revision), below r\(model.highestAcknowledged), already acknowledged")
            }
            try await waitUntil("every shell's and watcher's copy reaches r\(revision), the revision of shell-client state --json") {
                receivers.allSatisfy { $0.revision >= revision }
            }
            if receivers.contains(where: { $0.revision > revision }) {
                // The core applied an action of its own meanwhile (a randomize's set): again.
                note("\(label): the state moved on past r\(revision) (attempt \(attempt))")
                continue
            }
            for session in receivers where session.replica != state {
                throw ModelViolation("\(session.label)'s copy at r\(revision) differs from shell-client state --json at r\(revision): \(Self.difference(session.replica, state) ?? "?")\n    \(session.diagnosis)")
            }
            note("\(label): settled at r\(revision); \(receivers.count) copies equal the core's state")
            return
        }
        throw ModelViolation("the state kept moving on while nobody acted")
    }

    /// `shell-client state --json`: the revision, and the state without its "revision" key.
    private func coreState() async throws -> (UInt64, JSONValue) {
        let result = try await sandbox.client("state", "--json")
        guard result.status == 0 else { throw ModelViolation("shell-client state --json failed: \(result)") }
        let value = try WireJSON.decode(JSONValue.self, from: Array(result.output.utf8))
        guard case var .object(members) = value, case let .integer(revision)? = members.removeValue(forKey: "revision") else {
            throw ModelViolation("shell-client state --json printed no revision: \(result.output.prefix(300))")
        }
        return (UInt64(revision), .object(members))
    }

    /// The first place where two JSON values differ, as a pointer and both values (cut short).
    static func difference(_ a: JSONValue, _ b: JSONValue, at path: String = "") -> String? {
        switch (a, b) {
        case let (.object(x), .object(y)):
            for key in Set(x.keys).union(y.keys).sorted() {
                guard let left = x[key], let right = y[key] else {
                    return "\(path)/\(key): \(x[key] == nil ? "missing from the copy" : "missing from the core's state")"
                }
                if let found = difference(left, right, at: "\(path)/\(key)") { return found }
            }
            return nil
        case let (.array(x), .array(y)):
            for (index, (left, right)) in zip(x, y).enumerated() {
                if let found = difference(left, right, at: "\(path)/\(index)") { return found }
            }
            return x.count == y.count ? nil : "\(path): \(x.count) elements in the copy, \(y.count) in the core's state"
        default:
            return a == b ? nil : "\(path): \(ProtocolModel.text(a).prefix(120)) in the copy, \(ProtocolModel.text(b).prefix(120)) in the core's state"
        }
    }

    /// What the cores' traces say they applied, against what the clients were told.
    private func checkTraces() throws {
        let traces = cores.map { CoreTrace(log: $0.errorOutput) }
        let history = AppliedHistory(traces)
        var problems = history.problems
        if let stopped = traces.last?.stopped, stopped != history.last {
            problems.append("the last core stopped at r\(stopped), but the traces end at r\(history.last)")
        }
        let known = Set(clients.map(\.id))
        for id in history.byAction.keys where !known.contains(id) {
            problems.append("the cores applied actions of client \(id), which this run does not have")
        }
        for client in clients {
            let applied = history.byAction[client.id] ?? [:]
            for (seq, answer) in client.answers.sorted(by: { $0.key < $1.key }) {
                switch answer {
                case let .ack(revision):
                    if applied[seq] != revision {
                        problems.append("\(client.name) #\(seq) was acknowledged at r\(revision), but the cores applied it \(applied[seq].map { "at r\($0)" } ?? "never")")
                    }
                case let .reject(code):
                    if let revision = applied[seq] {
                        problems.append("\(client.name) #\(seq) was answered with reject \(code), but the cores applied it at r\(revision)")
                    }
                }
            }
            for (seq, revision) in applied where client.answers[seq] == nil {
                problems.append("\(client.name) #\(seq) was applied at r\(revision) and never answered")
            }
        }
        count("lost to kills (applied, never written)", by: history.lostToKills)
        if !problems.isEmpty {
            throw ModelViolation("the cores' traces disagree with what the clients were told:\n" + problems.prefix(20).map { "    " + $0 }.joined(separator: "\n"))
        }
    }

    private func count(_ what: String, by amount: Int) {
        if amount > 0 { counts[what, default: 0] += amount }
    }

    // MARK: Reading and writing

    /// Writes what the sockets take and reads what has arrived on every open connection that is
    /// being read, checking each message; whether anything happened.
    @discardableResult
    private func pump() throws -> Bool {
        var progress = false
        for session in sessions where session.isOpen {
            if session.io.flush() { progress = true }
            guard !session.paused else { continue }
            let frames: [[UInt8]]
            do {
                frames = try session.io.receive()
            } catch {
                throw ModelViolation("\(session.label): the core sent something that is not a frame: \(error)\n    \(session.diagnosis)")
            }
            if !frames.isEmpty { progress = true }
            for frame in frames { try model.received(frame, on: session) }
            if session.io.end != nil {
                try model.streamEnded(session)
                progress = true
            }
        }
        return progress
    }

    /// Pumps until `condition` holds; a violation naming `what` if it does not within `timeout`.
    private func waitUntil(_ what: String, timeout: Duration = answerTimeout, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let progress = try pump()
            if condition() { return }
            guard ContinuousClock.now < deadline else {
                let open = sessions.filter(\.isOpen)
                throw ModelViolation("timed out after \(timeout) waiting until \(what); the connections still open:\n"
                    + open.map { "    " + $0.diagnosis }.joined(separator: "\n"))
            }
            if !progress { try await Task.sleep(for: .milliseconds(1)) }
        }
    }

    /// Pumps until `condition` holds or `limit` has passed: a moment of the run, not a wait for
    /// something that must happen.
    private func pumpUntil(atMost limit: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let progress = try pump()
            if condition() { return }
            if !progress { try await Task.sleep(for: .milliseconds(1)) }
        }
    }
}
