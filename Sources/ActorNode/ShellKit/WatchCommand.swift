import Wire

/// `watch [--json | --patches] [--count N]`: the state now, then after every change.
///
/// As text or `--json` (the whole state on each line), a watcher slower than the core skips to
/// the newest state, so it never holds the core back. `--patches` prints what each change did,
/// a JSON Patch a line, for scripts that follow a big state: the first line (and the one after
/// a reconnection, or after the watcher fell so far behind that the core sent it the whole
/// state) replaces the whole document.
///
/// It runs on the calling thread alone, with blocking waits (a ``OneShotLink`` that said hello
/// as a watcher): each time it wakes it reads every frame the core has sent, applies each patch
/// to its copy of the state's JSON in place, and prints the newest state once. No other thread
/// or task is woken per change, so a hundred watchers cost the machine little more than the
/// bytes they read and print.
enum WatchCommand<App: ShellApp> {
    static func run(format: WatchFormat, count: Int?, options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        let path = try OneShotLink<App>.socketPath(options)
        do throws(OneShotHalt) {
            let (link, welcome) = try OneShotLink<App>.open(
                options, path: path, role: .watcher, name: "\(App.program) watch", reconnectFor: options.timeout)
            var watch = try WatchLoop<App>(format: format, count: count, window: options.timeout, welcome: welcome)
            return try watch.follow(link)
        } catch {
            if case let .failed(ending) = error, case .goodbye = ending {
                // The core was stopped for good: the watch is over, and that is no failure.
                StandardStreams.writeNow(2, Array("\(App.program): \(ending)\n".utf8))
                return .success
            }
            throw OneShotLink<App>.failure(error, timeout: options.timeout)
        }
    }
}

/// What `watch` knows while it follows the core: the state's JSON at the newest revision, and
/// what it has printed.
struct WatchLoop<App: ShellApp> {
    typealias Halt = OneShotHalt

    let format: WatchFormat
    let count: Int?
    /// How long a lost core is waited for.
    let window: Duration
    /// The state's JSON at `revision`, patched in place.
    private var document: JSONValue
    private var revision: UInt64
    /// The revision of the last state printed (as text or `--json`).
    private var shownRevision: UInt64?
    /// The last state printed as text, which the app's rendering compares with.
    private var previous: App.State?
    /// Lines printed; `--count` counts them.
    private var printed = 0
    /// Since when the newest state waits to be printed (as text or `--json`).
    private var unshownSince: ContinuousClock.Instant?
    /// Writes the lines of `--json`.
    private var lines = StateLineWriter()

    /// A state that waited this long is printed even if more frames keep coming.
    private static var longestWait: Duration { .milliseconds(50) }

    /// What printing a line led to.
    private enum Printed {
        case more
        /// The reader of stdout is gone, or `--count` lines are out: the watch is over.
        case done
    }

    init(format: WatchFormat, count: Int?, window: Duration, welcome: OneShotWelcome<App>) throws(Halt) {
        self.format = format
        self.count = count
        self.window = window
        do {
            document = try welcome.document()
        } catch {
            throw .failed(error)
        }
        revision = welcome.revision
    }

    /// Follows the core until the watch is over: stdout closed, `--count` reached, or the core
    /// gone for good (thrown).
    mutating func follow(_ link: OneShotLink<App>) throws(Halt) -> ExitStatus {
        defer { link.close() }
        if case .done = try took(welcomeAt: revision) { return .success }
        while true {
            // Once every frame of the last read is taken, or a state has waited long enough
            // (frames keep coming), it is printed.
            if let since = unshownSince, since.duration(to: .now) >= Self.longestWait {
                if case .done = try showState() { return .success }
            }
            switch try link.next(before: nil, unlessDrained: unshownSince != nil) {
            case .timedOut:
                if case .done = try showState() { return .success }
                continue
            case .welcome:
                throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
            case let .rendition(rendition):
                if case .done = try apply(rendition) { return .success }
            case let .message(message):
                switch message {
                case let .rendition(rendition):
                    // One the fast reader did not take: a form this client reads the general way.
                    if case .done = try apply(rendition) { return .success }
                    continue
                case let .notice(notice):
                    // A notice follows the state it came after.
                    if case .done = try showState() { return .success }
                    let text = PeerText.escaped(notice.text)
                    if format == .text {
                        guard StandardStreams.writeNow(1, Array("notice: \(text)\n".utf8)) else { return .success }
                    } else {
                        StandardStreams.writeNow(2, Array("\(App.program): notice: \(text)\n".utf8))
                    }
                    continue
                case .presence, .ack, .reject:
                    continue
                case let .error(error):
                    // A refusal of this client (version, protocol) is final; falling behind is not.
                    guard error.code == ErrorCode.tooSlow.rawValue else {
                        throw .failed(error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error))
                    }
                    // The core closes the connection next.
                    if case .done = try connectionLost(link, reason: "the core let this client go: \(error.message)", goodbye: false) { return .success }
                    continue
                case let .bye(bye):
                    if case .done = try connectionLost(link, reason: LinkError.goodbye(bye.reason).description, goodbye: true) { return .success }
                    continue
                case .welcome:
                    throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
                }
            case .ended:
                if case .done = try connectionLost(link, reason: "the connection to the core was lost", goodbye: false) { return .success }
            }
        }
    }

    /// The connection is lost (or about to be): what was not printed is, then the core is waited
    /// for within the window, as every command of the shell does.
    private mutating func connectionLost(_ link: OneShotLink<App>, reason: String, goodbye: Bool) throws(Halt) -> Printed {
        if case .done = try showState() { return .done }
        link.closeSocket()
        // After a goodbye the core was usually stopped for good; "reconnecting" is said only
        // once the first attempt shows that it may come back.
        var announced = !goodbye
        if announced { say("\(reason); reconnecting") }
        let welcome = try link.reconnect(within: window, after: reason, goodbye: goodbye) {
            if !announced { say("\(reason); reconnecting") }
            announced = true
        }
        do {
            document = try welcome.document()
        } catch {
            throw .failed(error)
        }
        // A newer state is printed as usual; an older one (a machine crash took back what was
        // not yet on disk) is printed all the same.
        if let shown = shownRevision, welcome.revision < shown { shownRevision = nil }
        revision = welcome.revision
        if case .done = try took(welcomeAt: revision) { return .done }
        if case .done = try showState() { return .done }
        say("reconnected to the core at revision \(revision)")
        return .more
    }

    /// A welcome's state is in `document`: under `--patches` it is a line of its own (the
    /// whole document), else it waits to be printed.
    private mutating func took(welcomeAt revision: UInt64) throws(Halt) -> Printed {
        lines.forgetAll()
        if format == .patches { return printLine(PatchLine.replacing(document, revision: revision)) }
        if shownRevision.map({ revision > $0 }) ?? true { unshownSince = unshownSince ?? .now }
        return .more
    }

    private mutating func apply(_ rendition: RenditionFrame) throws(Halt) -> Printed {
        switch rendition.content {
        case let .snapshot(snapshot):
            guard rendition.revision > revision else {
                throw .failed(.protocolError(ErrorMessage(.badFrame, "snapshot for revision \(rendition.revision) after revision \(revision)")))
            }
            document = snapshot
            revision = rendition.revision
            lines.forgetAll()
            if format == .patches { return printLine(PatchLine.replacing(document, revision: revision)) }
        case let .patch(patch):
            guard rendition.revision == revision + 1 else {
                throw .failed(.protocolError(ErrorMessage(.badFrame, "patch for revision \(rendition.revision) does not follow revision \(revision)")))
            }
            lines.changed(by: patch)
            do {
                try document.applyInPlace(patch)
            } catch {
                throw .failed(.protocolError(ErrorMessage(.badFrame, "the patch for revision \(rendition.revision) does not apply: \(error)")))
            }
            revision = rendition.revision
            if format == .patches { return printLine(PatchLine.line(.array(patch.map(\.json)), revision: revision)) }
        }
        unshownSince = unshownSince ?? .now
        return .more
    }

    /// Prints the newest state if it waits to be printed (as text or `--json`).
    private mutating func showState() throws(Halt) -> Printed {
        guard unshownSince != nil else { return .more }
        unshownSince = nil
        shownRevision = revision
        switch format {
        case .json:
            return printLine(lines.line(document, revision: revision))
        case .text:
            let state: App.State
            do {
                state = try document.decode(as: App.State.self)
            } catch {
                throw .failed(.protocolError(ErrorMessage(.badFrame, "the state at revision \(revision) does not decode: \(error)")))
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
