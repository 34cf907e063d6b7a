import FoundationEssentials
import Synchronization
import Wire

/// Opens a link to the core for one command of a shell, turning every way that can fail into
/// the documented exit status and a message that says what to do.
enum CoreConnection<App: ShellApp> {
    typealias Link = ShellLink<App.State, App.Action>

    /// The socket a command uses.
    static func socketPath(_ options: ShellOptions) -> String {
        App.naming.socketPath(option: options.socket, variable: ProcessEnvironment.value)
    }

    /// Where a command finds the core: `--ssh HOST`, or the socket here, checked (a path that
    /// does not fit in a socket address is a usage error).
    static func route(_ options: ShellOptions) throws(CommandFailure) -> CoreRoute {
        guard let host = options.ssh else { return .local(path: try checkedSocketPath(options)) }
        let route = SSHRoute(
            host: host, sshCommand: ProcessEnvironment.value(SSHRoute.commandVariable), remoteCommand: options.remoteCommand ?? App.program,
            socket: options.socket, controlDirectory: SSHRoute.preparedControlDirectory())
        return .ssh(SSHDialer(route: route, interactive: StandardStreams.isTerminal(0) && StandardStreams.isTerminal(2)))
    }

    /// The socket a command uses, checked: a path that does not fit in a socket address is a
    /// usage error.
    static func checkedSocketPath(_ options: ShellOptions) throws(CommandFailure) -> String {
        let path = socketPath(options)
        do {
            _ = try UnixSocket.address(path)
        } catch {
            throw .usage(error.description, program: App.program)
        }
        return path
    }

    /// The protocol's state for one command of this shell.
    /// - Parameters:
    ///   - options: the command's options (`--timeout`).
    ///   - role: the role to say hello with.
    ///   - name: the name to say hello with.
    ///   - window: how long a lost core is tried again; nil: never.
    ///   - mirrors: whether the command follows the state.
    ///   - snapshot: whether the command needs the state in the welcome (a script that only
    ///     sends actions or asks queries does not, and its welcome then costs nothing in
    ///     proportion to the state).
    static func machine(
        _ options: ShellOptions, role: ClientRole, name: String, reconnectFor window: Duration? = nil, mirrors: Bool, snapshot: Bool = true
    ) -> ClientMachine {
        ClientMachine(
            hello: Hello(role: role, client: ClientIdentity.current, name: name, snapshot: snapshot || mirrors), timeout: options.timeout,
            reconnection: window.map { ClientMachine.Reconnection(window: $0, target: options.ssh) }, mirrors: mirrors)
    }

    /// The client of a blocking command (``BlockingClient``): the protocol's state, and
    /// connections made the command's way (``route(_:)``).
    /// - Parameters:
    ///   - options: the command's options (`--timeout`, `--socket`, `--ssh`).
    ///   - role: the role to say hello with.
    ///   - name: the name to say hello with.
    ///   - window: how long a lost core is tried again; nil: never.
    ///   - mirrors: whether the command follows the state.
    ///   - snapshot: whether the command needs the state in the welcome.
    ///   - giveUp: the whole command's deadline, if it has one.
    static func blockingClient(
        _ options: ShellOptions, role: ClientRole, name: String, reconnectFor window: Duration? = nil, mirrors: Bool, snapshot: Bool = true,
        giveUp: MonotonicClock.Instant? = nil
    ) throws(CommandFailure) -> BlockingClient {
        let route = try route(options)
        let timeout = options.timeout
        let machine = machine(options, role: role, name: name, reconnectFor: window, mirrors: mirrors, snapshot: snapshot)
        return BlockingClient(machine: machine, giveUp: giveUp) { () throws(LinkError) in
            try route.connectBlocking(timeout: timeout)
        }
    }

    /// The exit status and message for a blocking command that failed or ran out of time.
    /// - Parameters:
    ///   - halt: how it ended.
    ///   - timeout: the command's `--timeout`, which a command out of time names.
    ///   - host: the `--ssh` host, if the core is on another machine.
    static func failure(_ halt: OneShotHalt, timeout: Duration, host: String? = nil) -> CommandFailure {
        switch halt {
        case let .failed(error):
            return failure(error, host: host)
        case .outOfTime:
            return CommandFailure(.unreachable, "the core did not answer within \(timeout.readable); is the core overloaded or stopped? see 'cama-launch status'")
        }
    }

    /// Connects and says hello. With `reconnectFor`, the link rides through restarts of the
    /// core for that long.
    static func open(
        _ options: ShellOptions, role: ClientRole, name: String, reconnectFor window: Duration? = nil
    ) async throws(CommandFailure) -> (Link, Welcome<App.State>) {
        let route = try route(options)
        let timeout = options.timeout
        // The first connection fails at once when nothing is there; later ones (after a
        // restart) are retried within the window (the machine's rule).
        let reconnection = window.map { Link.Reconnection(window: $0, target: options.ssh) }
        let link = Link(hello: Hello(role: role, client: ClientIdentity.current, name: name), reconnection: reconnection) { () throws(LinkError) in
            try await route.connect(timeout: timeout)
        }
        do {
            let welcome = try await link.open(timeout: options.timeout)
            return (link, welcome)
        } catch {
            throw failure(error, host: options.ssh)
        }
    }

    /// The exit status and message for a link that failed or ended.
    /// - Parameters:
    ///   - error: how it failed.
    ///   - host: the `--ssh` host, if the core is on another machine.
    static func failure(_ error: LinkError, host: String? = nil) -> CommandFailure {
        switch error {
        case let .unreachable(reason), let .noSocket(reason):
            return CommandFailure(.unreachable, "\(reason); start a core with \(App.startHint)")
        case let .timedOut(reason):
            return CommandFailure(.unreachable, "\(reason); is the core overloaded or stopped? see 'cama-launch status'")
        case let .versionMismatch(message):
            if let host, let theirs = message.protocolVersion {
                // The core's words (or the bridge's greeting) name neither machine.
                return CommandFailure(.protocolError, "CAMA on \(PeerText.escaped(host)) speaks protocol \(theirs) and this \(App.program) on \(LocalHost.name) speaks \(ProtocolVersion.current); install the same version of CAMA on both machines")
            }
            return CommandFailure(.protocolError, error.description)
        case .protocolError:
            return CommandFailure(.protocolError, "protocol error: \(error)")
        case let .closed(reason):
            return CommandFailure(.unreachable, "\(reason); check that the core is running ('cama-launch status')")
        case .goodbye:
            return CommandFailure(.unreachable, "\(error); start it again with \(App.startHint)")
        case let .untrusted(reason), let .remote(reason):
            return CommandFailure(.unreachable, reason)
        case let .remoteNoise(reason):
            return CommandFailure(.protocolError, reason)
        }
    }
}

/// The client id of this process: every action it sends carries it, on every connection.
enum ClientIdentity {
    static let current = RandomIdentifier.uuid()
}

/// Ends a one-shot command with a failure if the core does not answer in time, so that a core
/// that stops answering can never make it hang. Its countdown is a timer of the event loop, so
/// restarting it for every answer (`send -`) leaves nothing behind.
final class Watchdog: Sendable {
    private let timer = Mutex<EventLoop.Timer?>(nil)
    private let tripped = Chan<Void>(capacity: 1)
    private let timeout: Duration
    private let message: String

    init(timeout: Duration, message: String) {
        self.timeout = timeout
        self.message = message
    }

    /// Starts (or restarts) the countdown.
    func reset() {
        let tripped = self.tripped
        timer.withLock { current in
            if let current { EventLoop.shared.cancel(current) }
            current = EventLoop.shared.schedule(after: timeout) { tripped.trySend(()) }
        }
    }

    func stop() {
        timer.withLock { current in
            if let current { EventLoop.shared.cancel(current) }
            current = nil
        }
    }

    /// Runs `body`; if the countdown runs out first, throws the timeout (the body is left behind:
    /// the command is ending).
    func guarding<T: Sendable>(_ body: @escaping @Sendable () async throws(CommandFailure) -> T) async throws(CommandFailure) -> T {
        let tripped = self.tripped
        let outcome: Result<T, CommandFailure>? = await race([
            { @Sendable () async -> Result<T, CommandFailure>? in
                do throws(CommandFailure) { return .success(try await body()) } catch { return .failure(error) }
            },
            { @Sendable () async -> Result<T, CommandFailure>? in
                guard await tripped.receive() != nil else { return nil }
                return .failure(CommandFailure(.unreachable, "\(self.message) within \(self.timeout.readable); is the core overloaded or stopped? see 'cama-launch status'"))
            },
        ])
        guard let outcome else { throw CommandFailure(.unreachable, "\(message)") }
        return try outcome.get()
    }
}
