import Wire

/// The client's side of the protocol, free of I/O: the twin of the core's engine for every
/// shell, watcher and script. It takes what happened (a connection made or refused, bytes read,
/// the end of the stream, an action to send, the time) and says what to do (``ClientOutput``:
/// connect, write these bytes, disconnect) and what the user should learn (``ClientEvent``).
///
/// It holds everything the protocol asks of a client (PROTOCOL.md sections 5 to 7): the hello
/// and its welcome, numbering actions and matching their answers, the mirror of the state
/// patched in place by renditions with their revisions checked, the one reconnect rule
/// (``Backoff``) and resending what was not answered with its original (client, seq) after a
/// reconnection. Each way a session can fail is worded here once, as a ``LinkError``; the
/// commands turn those into exit statuses (``CoreConnection/failure(_:)``).
///
/// Drivers own the socket, the clock and the thread: a blocking one for one-shot commands and
/// `watch` (``BlockingClient``), and one on the event loop for `attach`. Tests drive it with
/// bytes alone.
package struct ClientMachine {
    /// How long a client keeps trying to reach a core it lost.
    package struct Reconnection: Sendable, Equatable {
        /// Give up when the core has been unreachable this long.
        package var window: Duration
        /// Where the core is, when it is not on this machine (the ssh host): "reconnecting to
        /// HOST" says so.
        package var target: String?

        /// - Parameters:
        ///   - window: how long to keep trying.
        ///   - target: the host the core is on, if it is another machine.
        package init(window: Duration, target: String? = nil) {
            self.window = window
            self.target = target
        }

        /// What a client says when it has lost the core: `reason` and that it is reconnecting;
        /// later, when a try through ssh failed, why ("still reconnecting to HOST: WHY").
        func announcement(_ reason: String, lastTry: String? = nil) -> String {
            let place = target.map { " to \(PeerText.escaped($0))" } ?? ""
            if let lastTry { return "still reconnecting\(place): \(lastTry)" }
            return "\(reason); reconnecting\(place)"
        }
    }

    /// The hello this client says on every connection.
    package let hello: Hello
    /// How long the core has to answer a hello.
    package let timeout: Duration
    /// Whether (and for how long) a lost core is tried again; nil: never.
    package let reconnection: Reconnection?
    /// Whether renditions are applied to ``document`` (a shell or watcher) or ignored (a
    /// script, which is sent none).
    package let mirrors: Bool

    /// The revision the mirror is at (the last welcome's, or a rendition's since).
    package private(set) var revision: UInt64 = 0
    /// The state's JSON at ``revision``, patched in place; nil until a welcome, and always nil
    /// for a client that does not mirror.
    package private(set) var document: JSONValue?
    /// The last welcome, as it came.
    package private(set) var welcome: ReceivedWelcome?
    /// Shells and watchers attached, as the core last said.
    package private(set) var shells = 0
    /// How the session ended, once it has (nil for a close of this client's own).
    package private(set) var ending: LinkError?
    /// Whether the session is over.
    package private(set) var isEnded = false
    /// Whether a patch did not apply and the whole state was asked for: until it comes,
    /// ``document`` may be half patched and patches are let pass.
    package private(set) var isResyncing = false

    private var phase = Phase.idle {
        didSet { isOpen = phase == .open }
    }
    /// Set while the first welcome has not come: trying is bounded by `openDeadline`.
    private var opening: Opening?
    /// Set while a lost core is being tried again.
    private var rejoining: Rejoining?
    private var decoder = FrameDecoder()
    private var nextSeq: UInt64 = 1
    /// Actions not yet answered, framed, in the order of their sequence numbers (the order
    /// they were submitted): sent again after a reconnection. (An array, not a dictionary by
    /// number: a process's first dictionary with `UInt64` keys has the runtime search the
    /// binary's conformances for `Hashable`, a tenth of a one-shot `send`.)
    private var unanswered: [(seq: UInt64, frame: [UInt8])] = []
    /// How many of the unanswered actions (all of them: see ``submit(_:)``) were written on
    /// this connection after its hello, before its welcome came; the welcome does not send
    /// them again.
    private var sentBeforeWelcome = 0
    /// How long the current handshake may take.
    private var handshakeWait = Duration.zero
    /// How the current connection is being lost, once the core has said (a goodbye, `too_slow`).
    private var losing: (reason: String, goodbye: Bool)?

    private enum Phase: Equatable {
        /// Not started.
        case idle
        /// Waiting for the driver to say whether the connection was made.
        case connecting
        /// Connected, hello sent, waiting for the welcome until the deadline.
        case handshaking(deadline: MonotonicClock.Instant)
        /// Welcomed: actions and renditions flow.
        case open
        /// No connection; the next attempt is due then.
        case waiting(until: MonotonicClock.Instant)
        case ended
    }

    /// The first connection's trying.
    private struct Opening {
        /// Whether an attempt has been made: the first connection fails at once when nothing
        /// is there, later ones (a core that died before welcoming) are tried again.
        var attempted = false
        let deadline: MonotonicClock.Instant
        var backoff = Backoff()
    }

    /// Getting back to a core that was lost.
    private struct Rejoining {
        let reason: String
        /// The core said goodbye: a socket that is gone then means it was stopped for good.
        let goodbye: Bool
        /// Whether "reconnecting" has been said.
        var announced: Bool
        /// Why the last try through ssh failed, once said (a passphrase a reconnection cannot
        /// ask for, a host gone): said again only when it changes.
        var lastTry: String?
        let deadline: MonotonicClock.Instant
        var backoff = Backoff()
    }

    /// - Parameters:
    ///   - hello: what to say on every connection.
    ///   - timeout: how long the core has to answer a hello (and the first connection's
    ///     trying, when that is longer than the reconnection window).
    ///   - reconnection: how long a lost core is tried again; nil: never.
    ///   - mirrors: whether to keep the state's JSON up to date from renditions.
    package init(hello: Hello, timeout: Duration, reconnection: Reconnection?, mirrors: Bool) {
        self.hello = hello
        self.timeout = timeout
        self.reconnection = reconnection
        self.mirrors = mirrors
    }

    /// When ``tick(now:)`` must be called next (a handshake's deadline, a reconnection's next
    /// attempt), if ever.
    package var deadline: MonotonicClock.Instant? {
        switch phase {
        case let .handshaking(deadline): return deadline
        case let .waiting(until): return until
        case .idle, .connecting, .open, .ended: return nil
        }
    }

    /// Whether a connection is up and welcomed.
    package private(set) var isOpen = false

    /// Whether actions are waiting for their answers.
    package var hasUnanswered: Bool { !unanswered.isEmpty }

    // MARK: Inputs

    /// Starts the session: connect.
    /// - Parameter now: the time.
    package mutating func start(now: MonotonicClock.Instant) -> [ClientOutput] {
        guard phase == .idle else { return [] }
        opening = Opening(deadline: now + max(timeout, reconnection?.window ?? timeout))
        phase = .connecting
        return [.connect]
    }

    /// The driver made the connection ``ClientOutput/connect`` asked for: say hello.
    /// - Parameter now: the time.
    package mutating func connected(now: MonotonicClock.Instant) -> [ClientOutput] {
        guard phase == .connecting else { return [] }
        opening?.attempted = true
        decoder = FrameDecoder()
        losing = nil
        let limit = opening?.deadline ?? rejoining?.deadline ?? now + timeout
        // On the way back to a lost core, each hello gets at most 5 s: the next attempt may
        // find a core that answers.
        let longest = rejoining == nil ? timeout : min(timeout, .seconds(5))
        handshakeWait = max(.milliseconds(100), min(longest, limit - now))
        phase = .handshaking(deadline: now + handshakeWait)
        sentBeforeWelcome = 0
        return [.write(ScriptFrames.hello(hello))]
    }

    /// The driver could not make the connection.
    /// - Parameters:
    ///   - error: why (``LinkError/noSocket(_:)``, ``LinkError/unreachable(_:)``,
    ///     ``LinkError/timedOut(_:)``, ``LinkError/untrusted(_:)``).
    ///   - now: the time.
    package mutating func connectFailed(_ error: LinkError, now: MonotonicClock.Instant) -> [ClientOutput] {
        guard phase == .connecting else { return [] }
        if let opening, !opening.attempted {
            // The first connection fails at once when nothing is there.
            return end(error, connected: false)
        }
        return attemptFailed(error, now: now, connected: false)
    }

    /// Bytes the core sent.
    /// - Parameters:
    ///   - bytes: what was read, in any chunks.
    ///   - now: the time.
    package mutating func received(_ bytes: UnsafeRawBufferPointer, now: MonotonicClock.Instant) -> [ClientOutput] {
        switch phase {
        case .handshaking, .open: break
        case .idle, .connecting, .waiting, .ended: return []
        }
        decoder.append(bytes)
        return takeFrames(now: now)
    }

    /// ``received(_:now:)`` for bytes in an array.
    package mutating func received(_ bytes: [UInt8], now: MonotonicClock.Instant) -> [ClientOutput] {
        bytes.withUnsafeBytes { received($0, now: now) }
    }

    /// A frame the core sent, from a transport that frames the stream itself.
    /// - Parameters:
    ///   - payload: the frame's payload.
    ///   - now: the time.
    package mutating func received(frame payload: [UInt8], now: MonotonicClock.Instant) -> [ClientOutput] {
        take(payload[...], now: now)
    }

    /// The transport found the stream broken (a frame too large, or cut short).
    /// - Parameters:
    ///   - error: what broke.
    ///   - now: the time.
    package mutating func streamBroke(_ error: FrameError, now: MonotonicClock.Instant) -> [ClientOutput] {
        switch phase {
        case .handshaking, .open:
            return end(.protocolError(ErrorMessage(.badFrame, "the core's stream broke: \(error)")), connected: true)
        case .idle, .connecting, .waiting, .ended:
            return []
        }
    }

    /// The connection ended: the core closed it, or reading or writing failed.
    /// - Parameter now: the time.
    package mutating func connectionEnded(now: MonotonicClock.Instant) -> [ClientOutput] {
        switch phase {
        case .handshaking:
            return attemptFailed(.closed("the core closed the connection before welcoming this client"), now: now, connected: true)
        case .open:
            if decoder.hasPartialFrame, losing == nil {
                do {
                    try decoder.finish()
                } catch {
                    return streamBroke(error, now: now)
                }
            }
            return lost(now: now)
        case .idle, .connecting, .waiting, .ended:
            return []
        }
    }

    /// Time passed: a handshake that took too long fails, a reconnection's next attempt starts.
    /// - Parameter now: the time.
    package mutating func tick(now: MonotonicClock.Instant) -> [ClientOutput] {
        switch phase {
        case let .handshaking(deadline) where now >= deadline:
            return attemptFailed(.timedOut("the core did not answer hello within \(handshakeWait.readable)"), now: now, connected: true)
        case let .waiting(until) where now >= until:
            phase = .connecting
            return [.connect]
        default:
            return []
        }
    }

    /// Numbers an action and sends it: at once when connected, and also while the hello waits
    /// for its welcome, if nothing older waits too (the core reads the action after the hello,
    /// so a one-shot `send` needs one round trip less); else once the core is back.
    /// - Parameter action: the action's JSON (``WireJSON/encode(_:)`` of it).
    /// - Returns: its sequence number, and what to do.
    /// - Throws: how the session ended, if it has; a ``LinkError/protocolError(_:)`` for an
    ///   action too large for a frame.
    package mutating func submit(_ action: [UInt8]) throws(LinkError) -> (seq: UInt64, outputs: [ClientOutput]) {
        if isEnded { throw ending ?? .closed("this client closed the link") }
        let seq = nextSeq
        let frame: [UInt8]
        do {
            frame = try ScriptFrames.action(action, client: hello.client, seq: seq)
        } catch {
            throw .protocolError(ErrorMessage(.tooLarge, "the action cannot be sent: \(error)"))
        }
        nextSeq += 1
        let early: Bool
        if case .handshaking = phase { early = unanswered.count == sentBeforeWelcome } else { early = false }
        unanswered.append((seq, frame))
        if early { sentBeforeWelcome += 1 }
        return (seq, phase == .open || early ? [.write(frame)] : [])
    }

    /// Asks the core about the past (``Query``): its entries and reply come as events. Not
    /// sent again after a reconnection: the caller asks again if it wants to.
    /// - Parameter query: the query.
    package mutating func ask(_ query: Query) throws(LinkError) -> [ClientOutput] {
        if isEnded { throw ending ?? .closed("this client closed the link") }
        guard phase == .open else { throw .closed("not connected to the core") }
        do {
            return [.write(try Frame.encode(WireJSON.encode(ClientMessage<JSONValue>.query(query))))]
        } catch {
            throw .protocolError(ErrorMessage(.internalError, "the query cannot be sent: \(error)"))
        }
    }

    /// This client is done: say bye and close.
    package mutating func close() -> [ClientOutput] {
        guard !isEnded else { return [] }
        var outputs: [ClientOutput] = []
        switch phase {
        case .handshaking, .open:
            outputs = [.write(ScriptFrames.bye), .disconnect]
        case .idle, .connecting, .waiting, .ended:
            break
        }
        phase = .ended
        isEnded = true
        ending = nil
        outputs.append(.event(.ended(nil)))
        return outputs
    }

    // MARK: Frames

    private mutating func takeFrames(now: MonotonicClock.Instant) -> [ClientOutput] {
        var outputs: [ClientOutput] = []
        while !isEnded {
            // A slice of what the decoder holds, read before the next bytes come (no copy).
            let payload: ArraySlice<UInt8>
            do {
                guard let frame = try decoder.nextFrameSlice() else { break }
                payload = frame
            } catch {
                outputs += streamBroke(error, now: now)
                break
            }
            // Most reads bring one frame: its outputs are taken as they are, not copied.
            if outputs.isEmpty {
                outputs = take(payload, now: now)
            } else {
                outputs += take(payload, now: now)
            }
        }
        return outputs
    }

    private mutating func take(_ payload: ArraySlice<UInt8>, now: MonotonicClock.Instant) -> [ClientOutput] {
        switch phase {
        case .handshaking: handshakeFrame(payload, now: now)
        case .open: sessionFrame(payload)
        case .idle, .connecting, .waiting, .ended: []
        }
    }

    /// What the core sent, read the quick way where the frame is in the form the core writes,
    /// else the general way; nil for a kind of message this client does not know (a newer
    /// core's), which is skipped.
    private enum Incoming {
        case ack(Ack)
        case rendition(RenditionFrame)
        case welcome(ReceivedWelcome)
        case message(ServerMessage<JSONValue>)
        case unknown
        case undecodable(String)
    }

    private func read(_ slice: ArraySlice<UInt8>) -> Incoming {
        // The two most frequent frames are read where they are; anything else is copied out.
        if let ack = ScriptFrames.ack(slice) { return .ack(ack) }
        if mirrors, let rendition = RenditionFrame.read(slice) { return .rendition(rendition) }
        let payload = Array(slice)
        if let split = WelcomeFrame.split(payload) {
            return .welcome(ReceivedWelcome(core: split.core, revision: split.revision, shells: split.shells, pid: split.pid, payload: payload, snapshot: split.snapshot))
        }
        do {
            let message = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload)
            if case let .welcome(welcome) = message {
                return .welcome(ReceivedWelcome(core: welcome.core, revision: welcome.revision, shells: welcome.shells, pid: welcome.pid, payload: payload, snapshot: nil))
            }
            return .message(message)
        } catch is UnknownMessageType {
            return .unknown
        } catch {
            return .undecodable(describeDecodingFailure(error))
        }
    }

    private mutating func handshakeFrame(_ payload: ArraySlice<UInt8>, now: MonotonicClock.Instant) -> [ClientOutput] {
        switch read(payload) {
        case let .welcome(welcome):
            return welcomed(welcome, now: now)
        case .unknown:
            return []
        case let .undecodable(reason):
            return attemptFailed(.protocolError(Self.notAMessage(reason)), now: now, connected: true)
        case let .message(.error(error)):
            return attemptFailed(Self.refusal(error), now: now, connected: true)
        case let .message(other):
            return attemptFailed(.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with \(other.name) instead of welcome")), now: now, connected: true)
        case .ack:
            return attemptFailed(.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with ack instead of welcome")), now: now, connected: true)
        case .rendition:
            return attemptFailed(.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with rendition instead of welcome")), now: now, connected: true)
        }
    }

    private mutating func sessionFrame(_ payload: ArraySlice<UInt8>) -> [ClientOutput] {
        switch read(payload) {
        case let .ack(ack):
            return answer(ack.seq, .applied(revision: ack.revision))
        case let .rendition(rendition):
            return apply(rendition)
        case .welcome:
            return end(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")), connected: true)
        case .unknown:
            return []
        case let .undecodable(reason):
            return end(.protocolError(Self.notAMessage(reason)), connected: true)
        case let .message(message):
            switch message {
            case let .ack(ack):
                return answer(ack.seq, .applied(revision: ack.revision))
            case let .reject(reject):
                return answer(reject.seq, .rejected(reject))
            case let .rendition(rendition):
                return mirrors ? apply(rendition) : []
            case let .notice(notice):
                return [.event(.notice(notice.text))]
            case let .presence(presence):
                shells = presence.shells
                return [.event(.presence(shells: presence.shells))]
            case let .reply(reply):
                return [.event(.replied(reply))]
            case let .entry(entry):
                return [.event(.entry(entry))]
            case let .error(error):
                // Falling behind is not final for a client that reconnects; any other refusal is.
                guard error.code == ErrorCode.tooSlow.rawValue, reconnection != nil else {
                    return end(Self.refusal(error), connected: true)
                }
                losing = ("the core let this client go: \(error.message)", false)
                return []
            case let .bye(bye):
                losing = (LinkError.goodbye(bye.reason).description, true)
                return []
            case .welcome:
                return end(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")), connected: true)
            }
        }
    }

    /// Where `seq` is among the unanswered (sorted by number), if it is.
    private func unansweredIndex(of seq: UInt64) -> Int? {
        var low = 0
        var high = unanswered.count
        while low < high {
            let middle = low + (high - low) / 2
            if unanswered[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low < unanswered.count && unanswered[low].seq == seq ? low : nil
    }

    private mutating func answer(_ seq: UInt64, _ outcome: ActionOutcome) -> [ClientOutput] {
        // Answers to numbers this client is not waiting for (a duplicate) are not news.
        guard let index = unansweredIndex(of: seq) else { return [] }
        unanswered.remove(at: index)
        return [.event(.answered(seq: seq, outcome))]
    }

    private mutating func apply(_ rendition: RenditionFrame) -> [ClientOutput] {
        guard mirrors else { return [] }
        switch rendition.content {
        case let .snapshot(snapshot):
            guard rendition.revision > revision else {
                return end(.protocolError(ErrorMessage(.badFrame, "snapshot for revision \(rendition.revision) after revision \(revision)")), connected: true)
            }
            document = snapshot
            isResyncing = false
        case let .patch(patch):
            // The patches the core sent before it heard the request: the snapshot follows them.
            if isResyncing { return [] }
            guard rendition.revision == revision + 1 else {
                return end(.protocolError(ErrorMessage(.badFrame, "patch for revision \(rendition.revision) does not follow revision \(revision)")), connected: true)
            }
            do {
                try document?.applyInPlace(patch)
            } catch {
                // The app's patch and its state's encoding disagree: the whole state is asked
                // for, and the session goes on from it (the core logs the app's bug).
                isResyncing = true
                let request = Resync(revision: rendition.revision, reason: error.description)
                return [
                    .write(ScriptFrames.resync(request)),
                    .event(.resyncing(revision: rendition.revision, reason: error.description)),
                ]
            }
        }
        revision = rendition.revision
        if case let .patch(patch) = rendition.content { return [.event(.changed(revision: revision, patch: patch))] }
        return [.event(.changed(revision: revision, patch: nil))]
    }

    // MARK: Welcomes, losses and the end

    private mutating func welcomed(_ received: ReceivedWelcome, now: MonotonicClock.Instant) -> [ClientOutput] {
        if mirrors {
            do throws(LinkError) {
                document = try received.document()
            } catch {
                return end(error, connected: true)
            }
        }
        welcome = received
        isResyncing = false
        revision = received.revision
        shells = received.shells
        phase = .open
        var outputs: [ClientOutput] = []
        if opening != nil {
            opening = nil
            outputs.append(.event(.welcomed(revision: received.revision, shells: received.shells, pid: received.pid)))
        } else {
            if let rejoining, !rejoining.announced { outputs.append(.event(.reconnecting(reconnection?.announcement(rejoining.reason) ?? rejoining.reason))) }
            rejoining = nil
            outputs.append(.event(.reconnected(revision: revision)))
        }
        // What was submitted before (and not answered on a lost connection) goes now, in order,
        // but for what went right after this connection's hello.
        for entry in unanswered.dropFirst(sentBeforeWelcome) {
            outputs.append(.write(entry.frame))
        }
        sentBeforeWelcome = 0
        return outputs
    }

    /// The open connection is gone.
    private mutating func lost(now: MonotonicClock.Instant) -> [ClientOutput] {
        let (reason, goodbye) = losing ?? ("the connection to the core was lost", false)
        losing = nil
        guard let reconnection else {
            return end(goodbye ? .goodbye(nil) : .closed(reason), connected: true)
        }
        // After a goodbye the core was usually stopped for good; "reconnecting" is said only
        // once the first attempt shows that it may come back.
        var rejoining = Rejoining(reason: reason, goodbye: goodbye, announced: !goodbye, deadline: now + reconnection.window)
        phase = .waiting(until: now + rejoining.backoff.next())
        self.rejoining = rejoining
        var outputs: [ClientOutput] = [.disconnect]
        if !goodbye { outputs.append(.event(.reconnecting(reconnection.announcement(reason)))) }
        return outputs
    }

    /// A connection attempt (connecting, or its handshake) failed.
    private mutating func attemptFailed(_ error: LinkError, now: MonotonicClock.Instant, connected: Bool) -> [ClientOutput] {
        let disconnect: [ClientOutput] = connected ? [.disconnect] : []
        if var opening {
            switch error {
            case .versionMismatch, .protocolError, .goodbye, .untrusted, .remoteNoise:
                return end(error, connected: connected)
            case .closed, .timedOut, .unreachable, .noSocket, .remote:
                guard reconnection != nil, now < opening.deadline else { return end(error, connected: connected) }
                phase = .waiting(until: now + opening.backoff.next())
                self.opening = opening
                return disconnect
            }
        }
        guard var rejoining, let reconnection else { return end(error, connected: connected) }
        if case .noSocket = error, rejoining.goodbye {
            // The core said goodbye and its socket is gone: it was stopped for good.
            return end(.goodbye(nil), connected: connected)
        }
        switch error {
        case .versionMismatch, .untrusted, .remoteNoise:
            // Not the core that was lost, nor one to talk to: stop here, nothing is resent.
            return end(error, connected: connected)
        default:
            break
        }
        var outputs = disconnect
        if !rejoining.announced {
            rejoining.announced = true
            outputs.append(.event(.reconnecting(reconnection.announcement(rejoining.reason))))
        } else if case let .remote(why) = error, rejoining.lastTry != why {
            rejoining.lastTry = why
            outputs.append(.event(.reconnecting(reconnection.announcement(rejoining.reason, lastTry: why))))
        }
        guard now < rejoining.deadline else {
            self.rejoining = rejoining
            return outputs + end(.closed("\(rejoining.reason), and it was not back within \(reconnection.window.readable) (\(error))"), connected: false)
        }
        phase = .waiting(until: now + rejoining.backoff.next())
        self.rejoining = rejoining
        return outputs
    }

    private mutating func end(_ error: LinkError, connected: Bool) -> [ClientOutput] {
        guard !isEnded else { return [] }
        isEnded = true
        ending = error
        phase = .ended
        return (connected ? [.disconnect] : []) + [.event(.ended(error))]
    }


    /// The `error` a core sent, as the failure it is.
    private static func refusal(_ error: ErrorMessage) -> LinkError {
        error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error)
    }

    /// A frame from the core that is not a message.
    /// - Parameter reason: what is wrong with it.
    package static func notAMessage(_ reason: String) -> ErrorMessage {
        ErrorMessage(.badFrame, "the core sent a frame that is not a valid message: \(reason)")
    }

    /// A state (the mirror's, or a welcome's) that is not the app's state.
    /// - Parameters:
    ///   - revision: its revision.
    ///   - error: the decoding failure.
    package static func undecodableState(revision: UInt64, _ error: any Error) -> LinkError {
        .protocolError(ErrorMessage(.badFrame, "the state at revision \(revision) does not decode: \(error)"))
    }
}
