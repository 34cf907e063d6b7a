import Wire

/// `watch [--json | --patches] [--count N]`: the state now, then after every change.
///
/// As text or `--json` (the whole state on each line), a watcher slower than the core skips to
/// the newest state, so it never holds the core back. `--patches` prints what each change did,
/// a JSON Patch a line, for scripts that follow a big state: the first line (and the one after
/// a reconnection, or after the watcher fell so far behind that the core sent it the whole
/// state) replaces the whole document.
///
/// It runs on the calling thread alone, with blocking waits (a ``BlockingClient`` that said
/// hello as a watcher and mirrors the state): each time it wakes it reads every frame the core
/// has sent, its machine applies each patch to the state's JSON in place, and the newest state
/// is printed once. No other thread or task is woken per change, so a hundred watchers cost
/// the machine little more than the bytes they read and print.
///
/// The thread runs as batch work (``SystemThread/scheduleAsBatchWork()``): a watcher the core
/// wakes takes a free CPU at once but never preempts the core, which otherwise was preempted
/// some twenty times while it wrote one change to a hundred watchers (each switch costing
/// both the time and the caches). On a busy machine a watcher prints a few milliseconds later,
/// and skips to the newest state as it always could.
enum WatchCommand<App: ShellApp> {
    static func run(format: WatchFormat, count: Int?, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        SystemThread.scheduleAsBatchWork()
        let client = try CoreConnection<App>.blockingClient(options, role: .watcher, name: "\(App.program) watch", reconnectFor: options.timeout, mirrors: true)
        do throws(OneShotHalt) {
            _ = try client.open()
            var watch = WatchLoop<App>(format: format, count: count)
            return try watch.follow(client)
        } catch {
            if case let .failed(ending) = error, case .goodbye = ending {
                // The core was stopped for good: the watch is over, and that is no failure.
                StandardStreams.writeNow(2, Array("\(App.program): \(ending)\n".utf8))
                return .success
            }
            throw CoreConnection<App>.failure(error, timeout: options.timeout, host: options.ssh)
        }
    }
}

/// What `watch` has printed while it follows the core (the state itself is the client's
/// mirror).
struct WatchLoop<App: ShellApp> {
    let format: WatchFormat
    let count: Int?
    /// The revision of the last state printed (as text or `--json`).
    private var shownRevision: UInt64?
    /// The last state printed as text, which the app's rendering compares with.
    private var previous: App.State?
    /// Lines printed; `--count` counts them.
    private var printed = 0
    /// Since when the newest state waits to be printed (as text or `--json`), in
    /// ``MonotonicClock`` nanoseconds.
    private var unshownSince: UInt64?
    /// Writes the lines of `--json`.
    private var lines = StateLineWriter()
    /// Whether the note that the whole state had to be asked for was said.
    private var saidResync = false

    /// A state that waited this long (nanoseconds) is printed even if more frames keep coming.
    private static var longestWait: UInt64 { 50_000_000 }

    /// What printing a line led to.
    private enum Printed {
        case more
        /// The reader of stdout is gone, or `--count` lines are out: the watch is over.
        case done
    }

    init(format: WatchFormat, count: Int?) {
        self.format = format
        self.count = count
    }

    /// Follows the core until the watch is over: stdout closed, `--count` reached, or the core
    /// gone for good (thrown).
    mutating func follow(_ client: BlockingClient) throws(OneShotHalt) -> ExitStatus {
        defer { client.close() }
        if case .done = replaced(client) { return .success }
        // One array for the events of every wait, its storage handed back and forth.
        var events: [ClientEvent] = []
        while true {
            // Once every frame of the last read is taken, or a state has waited long enough
            // (frames keep coming), it is printed.
            if let since = unshownSince, MonotonicClock.now &- since >= Self.longestWait {
                if case .done = try showState(client) { return .success }
            }
            try client.takeEvents(before: nil, unlessDrained: unshownSince != nil, into: &events)
            if events.isEmpty, case .done = try showState(client) { return .success }
            for event in events {
                if case .done = try take(event, client) { return .success }
            }
        }
    }

    private mutating func take(_ event: ClientEvent, _ client: BlockingClient) throws(OneShotHalt) -> Printed {
        switch event {
        case let .changed(_, patch?):
            lines.changed(by: patch)
            if format == .patches { return printLine(PatchLine.line(.array(patch.map(\.json)), revision: client.machine.revision)) }
            unshownSince = unshownSince ?? MonotonicClock.now
            return .more
        case .changed(_, nil):
            return replaced(client)
        case let .notice(text):
            // A notice follows the state it came after.
            if case .done = try showState(client) { return .done }
            let text = PeerText.escaped(text)
            if format == .text {
                guard StandardStreams.writeNow(1, Array("notice: \(text)\n".utf8)) else { return .done }
            } else {
                say("notice: \(text)")
            }
            return .more
        case let .reconnecting(reason):
            if case .done = try showState(client) { return .done }
            say(reason)
            return .more
        case let .reconnected(revision):
            // A newer state is printed as usual; an older one (a machine crash took back what
            // was not yet on disk) is printed all the same.
            if let shown = shownRevision, revision < shown { shownRevision = nil }
            if case .done = replaced(client) { return .done }
            if case .done = try showState(client) { return .done }
            say("reconnected to the core at revision \(revision)")
            return .more
        case let .ended(error):
            if case .done = try showState(client) { return .done }
            guard let error else { return .done }
            throw .failed(error)
        case let .resyncing(revision, reason):
            if !saidResync {
                saidResync = true
                say(ClientEvent.resyncNote(revision: revision, reason: reason))
            }
            return .more
        case .welcomed, .answered, .presence, .replied, .entry:
            return .more
        }
    }

    /// The mirror was replaced whole (a welcome, a snapshot): under `--patches` that is a line
    /// of its own (the whole document), else the state waits to be printed.
    private mutating func replaced(_ client: BlockingClient) -> Printed {
        lines.forgetAll()
        let revision = client.machine.revision
        if format == .patches { return printLine(PatchLine.replacing(client.machine.document ?? .null, revision: revision)) }
        if shownRevision.map({ revision > $0 }) ?? true { unshownSince = unshownSince ?? MonotonicClock.now }
        return .more
    }

    /// Prints the newest state if it waits to be printed (as text or `--json`).
    private mutating func showState(_ client: BlockingClient) throws(OneShotHalt) -> Printed {
        // A mirror waiting for the whole state may be half patched: it is shown once it came.
        guard unshownSince != nil, !client.machine.isResyncing else { return .more }
        unshownSince = nil
        let revision = client.machine.revision
        shownRevision = revision
        switch format {
        case .json:
            return printLine(lines.line(client.machine.document ?? .null, revision: revision))
        case .text:
            let state: App.State
            do {
                state = try (client.machine.document ?? .null).decode(as: App.State.self)
            } catch {
                throw .failed(ClientMachine.undecodableState(revision: revision, error))
            }
            let line = App.renderChange(from: previous, to: state, revision: revision)
            previous = state
            // A change the app prints nothing for is not counted: --count counts lines.
            return line.isEmpty ? .more : printLine(Array(line.utf8))
        case .patches:
            return .more
        }
    }

    /// Prints a line of the watch on stdout; a reader that went away (the pipe closed) ends the
    /// watch quietly.
    private mutating func printLine(_ line: [UInt8]) -> Printed {
        guard StandardStreams.writeNow(1, line) else { return .done }
        printed += 1
        if let count, printed >= count { return .done }
        return .more
    }

    private func say(_ line: String) {
        StandardStreams.writeNow(2, Array("\(App.program): \(line)\n".utf8))
    }
}

/// One line of `watch --patches`: `{"patch":[...],"revision":R}`.
enum PatchLine {
    /// The line of a patch, given as JSON.
    static func line(_ patch: JSONValue, revision: UInt64) -> [UInt8] {
        var line = Array(#"{"patch":"#.utf8)
        line += (try? JSONSerializer.serialize(patch)) ?? Array("[]".utf8)
        line += #","revision":"#.utf8
        line += String(revision).utf8
        line += "}\n".utf8
        return line
    }

    /// The line that replaces the whole document with `document`.
    static func replacing(_ document: JSONValue, revision: UInt64) -> [UInt8] {
        line(.array([.object(["op": .string("replace"), "path": .string(""), "value": document])]), revision: revision)
    }
}
