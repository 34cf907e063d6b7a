import Glibc
import Wire

/// A command's conversation with the core on the calling thread with blocking waits (`send` of
/// one action, `state`, `watch`): connect, hello, welcome, then the action and its answer, or
/// the renditions that follow (``WatchLoop``). No event loop thread, no tasks, and no work in proportion to the state's size unless
/// the command needs the state: the welcome's state is located, not decoded, until asked for.
///
/// It keeps the rules of ``ShellLink`` for a script, message for message: the first connection
/// fails at once when nothing is there; with a reconnection window, a connection lost before the
/// welcome or before the answer is made again with backoff (100 ms doubling to 2 s), and the
/// action is sent again with the same client id and sequence number. With a deadline for the
/// whole command (`send`'s watchdog), no wait goes past it.
final class OneShotLink<App: ShellApp> {
    typealias Halt = OneShotHalt

    /// What came from the core. Messages are read with the state left as JSON: a script is sent
    /// no renditions, and a welcome's state is decoded only if the command needs it.
    enum Incoming {
        case welcome(OneShotWelcome<App>)
        /// A rendition (sent to a watcher), read by hand.
        case rendition(RenditionFrame)
        case message(ServerMessage<JSONValue>)
        case ended
        case timedOut
    }

    let path: String
    let hello: Hello
    let timeout: Duration
    let window: Duration?
    let giveUp: ContinuousClock.Instant?
    private var socket: BlockingFrameSocket?
    /// The stream broke or held a frame that is not a message: reading it again is the end.
    private var streamEnded = false

    private static var initialDelay: Duration { .milliseconds(100) }
    private static var maximumDelay: Duration { .seconds(2) }

    private init(path: String, hello: Hello, timeout: Duration, window: Duration?, giveUp: ContinuousClock.Instant?) {
        self.path = path
        self.hello = hello
        self.timeout = timeout
        self.window = window
        self.giveUp = giveUp
    }

    /// Connects and says hello, as ``CoreConnection/open(_:role:name:reconnectFor:)`` does.
    /// - Parameters:
    ///   - options: the command's options.
    ///   - path: the socket, from ``socketPath(_:)``.
    ///   - role: the role to say hello with.
    ///   - name: the name to say hello with.
    ///   - window: with a window, a connection lost before the welcome is made again within it.
    ///   - giveUp: the whole command's deadline, if it has one.
    static func open(
        _ options: ShellOptions, path: String, role: ClientRole, name: String, reconnectFor window: Duration? = nil, giveUp: ContinuousClock.Instant? = nil
    ) throws(Halt) -> (OneShotLink, OneShotWelcome<App>) {
        let link = OneShotLink(path: path, hello: Hello(role: role, client: ClientIdentity.current, name: name), timeout: options.timeout, window: window, giveUp: giveUp)
        // The first connection fails at once when nothing is there; later ones (after a
        // restart) are tried again within the window.
        var socket: BlockingFrameSocket? = try link.connect()
        let deadline = ContinuousClock.now + max(options.timeout, window ?? options.timeout)
        var delay = window == nil ? Duration.zero : initialDelay
        while true {
            do throws(Halt) {
                let current: BlockingFrameSocket
                if let socket { current = socket } else { current = try link.connect() }
                socket = nil
                let remaining = deadline - ContinuousClock.now
                let welcome = try link.handshake(current, timeout: max(.milliseconds(100), min(options.timeout, remaining)))
                return (link, welcome)
            } catch {
                socket = nil
                guard case let .failed(failure) = error else { throw error }
                switch failure {
                case .versionMismatch, .protocolError, .goodbye, .untrusted:
                    throw error
                case .closed, .timedOut, .unreachable, .noSocket:
                    guard window != nil, ContinuousClock.now < deadline else { throw error }
                    try link.sleep(for: delay)
                    delay = min(max(delay * 2, initialDelay), maximumDelay)
                }
            }
        }
    }

    /// Sends `action` as this client's action number 1 and waits for its answer; with a
    /// window, rides through a restart of the core, sending it again once reconnected.
    func send(_ action: App.Action) throws(Halt) -> ActionOutcome {
        let seq: UInt64 = 1
        let frame: [UInt8]
        do {
            frame = try ScriptFrames.action(WireJSON.encode(action), client: hello.client, seq: seq)
        } catch {
            throw .failed(.protocolError(ErrorMessage(.internalError, "could not encode the action: \(error)")))
        }
        while true {
            writeIgnoringFailure(frame)
            var lost = "the connection to the core was lost"
            var goodbye = false
            reading: while true {
                switch try next(before: giveUp ?? .now + .seconds(86_400 * 365)) {
                case .timedOut:
                    continue
                case .ended:
                    break reading
                case .welcome:
                    closeSocket()
                    throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
                case .rendition:
                    // A script is sent none.
                    continue
                case let .message(message):
                    switch message {
                    case let .ack(ack) where ack.seq == seq:
                        return .applied(revision: ack.revision)
                    case let .reject(reject) where reject.seq == seq:
                        return .rejected(reject)
                    case .ack, .reject, .rendition, .notice, .presence:
                        // A script is sent no renditions, notices or presence; answers to
                        // other numbers are not this command's.
                        continue
                    case let .error(error):
                        // A refusal of this client (version, protocol) is final; falling behind is not.
                        guard error.code == ErrorCode.tooSlow.rawValue, window != nil else {
                            closeSocket()
                            throw .failed(error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error))
                        }
                        lost = "the core let this client go: \(error.message)"
                    case let .bye(bye):
                        lost = LinkError.goodbye(bye.reason).description
                        goodbye = true
                    case .welcome:
                        closeSocket()
                        throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome")))
                    }
                }
            }
            closeSocket()
            guard let window else { throw .failed(goodbye ? .goodbye(nil) : .closed(lost)) }
            try reconnect(within: window, after: lost, goodbye: goodbye)
        }
    }

    /// Says bye and closes the connection.
    func close() {
        guard let socket else { return }
        try? socket.write(ScriptFrames.bye, before: .now + .milliseconds(100))
        closeSocket()
    }

    /// The socket to use; a path that does not fit in a socket address is a usage error.
    static func socketPath(_ options: ShellOptions) throws(CommandFailure) -> String {
        let path = CoreConnection<App>.socketPath(options)
        do {
            _ = try UnixSocket.address(path)
        } catch {
            throw .usage(error.description, program: App.program)
        }
        return path
    }

    // MARK: Steps

    /// Connects to the socket, as ``SocketClient/connect(to:timeout:limits:state:action:)`` does.
    private func connect() throws(Halt) -> BlockingFrameSocket {
        do {
            return BlockingFrameSocket(fd: try ServerConnector.connectBlocking(to: path, timeout: timeout))
        } catch {
            switch error {
            case let .noSocket(reason): throw .failed(.noSocket(reason))
            case let .unreachable(reason), let .badPath(reason): throw .failed(.unreachable(reason))
            case let .timedOut(reason):
                if let giveUp, ContinuousClock.now >= giveUp { throw .outOfTime }
                throw .failed(.timedOut(reason))
            case let .untrusted(reason): throw .failed(.untrusted(reason))
            }
        }
    }

    /// Says hello on `socket` and takes its welcome; the socket is this link's from then on.
    private func handshake(_ socket: BlockingFrameSocket, timeout: Duration) throws(Halt) -> OneShotWelcome<App> {
        self.socket = socket
        streamEnded = false
        // A failed write shows when reading: the core closed the connection.
        try? socket.write(ScriptFrames.hello(hello), before: ContinuousClock.now + timeout)
        switch try next(before: ContinuousClock.now + timeout) {
        case .timedOut:
            closeSocket()
            throw .failed(.timedOut("the core did not answer hello within \(timeout.readable)"))
        case .ended:
            closeSocket()
            throw .failed(.closed("the core closed the connection before welcoming this client"))
        case let .welcome(welcome):
            return welcome
        case let .message(.error(error)):
            closeSocket()
            throw .failed(error.code == ErrorCode.versionMismatch.rawValue ? .versionMismatch(error) : .protocolError(error))
        case let .message(other):
            closeSocket()
            throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with \(other.name) instead of welcome")))
        case .rendition:
            closeSocket()
            throw .failed(.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with rendition instead of welcome")))
        }
    }

    /// Tries to get back to a core, with growing delays, until the window closes; returns the
    /// new connection's welcome.
    /// - Parameters:
    ///   - window: how long to keep trying.
    ///   - reason: how the connection was lost, for the message if the core is not back in time.
    ///   - goodbye: whether the core said goodbye: then a socket that is gone means it was
    ///     stopped for good, and trying ends there.
    ///   - attempted: called after each attempt that did not end the trying (and after the one
    ///     that succeeded), for a command that tells its user it is reconnecting.
    @discardableResult
    func reconnect(within window: Duration, after reason: String, goodbye: Bool, attempted: () -> Void = {}) throws(Halt) -> OneShotWelcome<App> {
        let deadline = ContinuousClock.now + window
        var delay = Self.initialDelay
        while true {
            try sleep(for: delay)
            delay = min(delay * 2, Self.maximumDelay)
            let remaining = deadline - ContinuousClock.now
            do throws(Halt) {
                let socket = try connect()
                let welcome = try handshake(socket, timeout: max(.milliseconds(100), min(remaining, .seconds(5))))
                attempted()
                return welcome
            } catch {
                guard case let .failed(failure) = error else { throw error }
                if case .noSocket = failure, goodbye {
                    // The core said goodbye and its socket is gone: it was stopped for good.
                    throw .failed(.goodbye(nil))
                }
                switch failure {
                case .versionMismatch, .untrusted:
                    // Not the core we lost, nor one to talk to: stop here, nothing is resent.
                    throw error
                default:
                    attempted()
                    guard ContinuousClock.now < deadline else {
                        throw .failed(.closed("\(reason), and it was not back within \(window.readable) (\(failure))"))
                    }
                }
            }
        }
    }

    /// The next message from the core before `deadline` (or the whole command's deadline,
    /// which ends the command). Messages of a type this client does not know are skipped; a
    /// frame that is not a message, or a broken stream, is an `error` message and the end.
    /// - Parameters:
    ///   - deadline: when to give up waiting (`.timedOut`); nil to wait as long as it takes
    ///     (unless the whole command has a deadline).
    ///   - unlessDrained: `.timedOut` at once when what the last read brought has all been
    ///     taken (see ``BlockingFrameSocket/readFrame(before:unlessDrained:)``).
    func next(before deadline: ContinuousClock.Instant?, unlessDrained: Bool = false) throws(Halt) -> Incoming {
        guard let socket, !streamEnded else { return .ended }
        let limit = giveUp.map { giveUp in deadline.map { min(giveUp, $0) } ?? giveUp } ?? deadline
        while true {
            let payload: [UInt8]
            do {
                guard let frame = try socket.readFrame(before: limit, unlessDrained: unlessDrained) else { return .ended }
                payload = frame
            } catch {
                switch error {
                case .timedOut:
                    if let giveUp, ContinuousClock.now >= giveUp { throw .outOfTime }
                    return .timedOut
                case let .connection(.frame(frameError)):
                    streamEnded = true
                    return .message(.error(ErrorMessage(.badFrame, "the core's stream broke: \(frameError)")))
                case .connection:
                    return .ended
                }
            }
            // The frames a script gets, in the form the core writes them, are read by hand.
            if let ack = ScriptFrames.ack(payload) {
                return .message(.ack(ack))
            }
            if let rendition = RenditionFrame.read(payload) {
                return .rendition(rendition)
            }
            if let split = WelcomeFrame.split(payload) {
                return .welcome(OneShotWelcome(revision: split.revision, payload: payload, snapshot: split.snapshot))
            }
            do {
                let message = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload)
                if case let .welcome(welcome) = message {
                    return .welcome(OneShotWelcome(revision: welcome.revision, payload: payload, snapshot: nil))
                }
                return .message(message)
            } catch is UnknownMessageType {
                // A newer core may send kinds of messages this client does not know: skip them.
                continue
            } catch {
                streamEnded = true
                return .message(.error(ErrorMessage(.badFrame, "the core sent a frame that is not a valid message: \(describeDecodingFailure(error))")))
            }
        }
    }

    private func writeIgnoringFailure(_ frame: [UInt8]) {
        guard let socket else { return }
        try? socket.write(frame, before: giveUp ?? .now + timeout)
    }

    /// Sleeps `delay`, or until the whole command's deadline, which ends the command.
    private func sleep(for delay: Duration) throws(Halt) {
        var until = ContinuousClock.now + delay
        if let giveUp, giveUp <= until {
            until = giveUp
            sleepUntil(until)
            throw .outOfTime
        }
        sleepUntil(until)
    }

    private func sleepUntil(_ instant: ContinuousClock.Instant) {
        while true {
            let left = ContinuousClock.now.duration(to: instant)
            guard left > .zero else { return }
            let (seconds, attoseconds) = left.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }

    /// Closes the connection without a word (it is lost or refused).
    func closeSocket() {
        socket?.close()
        socket = nil
    }
}

/// How a step of a ``OneShotLink`` ended when it did not succeed.
enum OneShotHalt: Error {
    case failed(LinkError)
    /// The whole command's deadline passed.
    case outOfTime
}

extension OneShotLink {
    /// The exit status and message for a step that failed, as every command of the shell
    /// reports them.
    /// - Parameters:
    ///   - halt: how the step ended.
    ///   - timeout: the command's `--timeout`, which a command out of time names.
    static func failure(_ halt: Halt, timeout: Duration) -> CommandFailure {
        switch halt {
        case let .failed(error):
            return CoreConnection<App>.failure(error)
        case .outOfTime:
            return CommandFailure(.unreachable, "the core did not answer within \(timeout.readable); is the core overloaded or stopped? see 'cama-launch status'")
        }
    }
}

/// The welcome a one-shot command received: its revision, and the frame as it came, its state
/// decoded only when asked for.
struct OneShotWelcome<App: ShellApp> {
    let revision: UInt64
    /// The whole frame.
    let payload: [UInt8]
    /// Where the state's text is in `payload`, when the frame was split (``WelcomeFrame``).
    let snapshot: Range<Int>?

    /// The state, decoded; when it does not decode, the failure as the general reader reports
    /// the frame.
    func state() throws(LinkError) -> App.State {
        // The state's text alone, when the frame was split: no envelope to read again.
        if let snapshot, let state = try? WireJSON.decode(App.State.self, from: payload[snapshot]) { return state }
        do {
            guard case let .welcome(welcome) = try WireJSON.decode(ServerMessage<App.State>.self, from: payload) else {
                throw LinkError.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with another message instead of welcome"))
            }
            return welcome.snapshot
        } catch let error as LinkError {
            throw error
        } catch {
            throw .protocolError(ErrorMessage(.badFrame, "the core sent a frame that is not a valid message: \(describeDecodingFailure(error))"))
        }
    }

    /// The state as JSON, as the core sent it.
    func document() throws(LinkError) -> JSONValue {
        if let snapshot, let json = try? WireJSON.decode(JSONValue.self, from: payload[snapshot]) { return json }
        do {
            guard case let .welcome(welcome) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else {
                throw LinkError.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with another message instead of welcome"))
            }
            return welcome.snapshot
        } catch let error as LinkError {
            throw error
        } catch {
            throw .protocolError(ErrorMessage(.badFrame, "the core sent a frame that is not a valid message: \(describeDecodingFailure(error))"))
        }
    }

    /// `state --json`'s line: the state as the core sent it with `"revision"` set at its top
    /// level, when the core sent it in the wire's canonical form (every core built on this
    /// framework does), which makes it the same bytes as decoding the state and writing it
    /// again (``StateJSON/line(_:revision:)``); nil otherwise.
    func jsonLine() -> [UInt8]? {
        guard let snapshot else { return nil }
        let revisionText = Array(String(revision).utf8)
        guard var line = CanonicalJSON.setting("revision", to: revisionText, in: payload[snapshot]) else { return nil }
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
