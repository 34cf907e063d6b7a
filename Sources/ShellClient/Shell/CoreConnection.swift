import ActorNode
import FoundationEssentials
import Synchronization
import TodoContract
import Wire

/// Opens a link to the core for one command, turning every way that can fail into the
/// documented exit status and a message that says what to do.
enum CoreConnection {
    typealias Link = ShellLink<AppState, AppAction>

    /// A client id for this process: every action it sends carries it.
    static let clientID = UUID().uuidString.lowercased()

    /// Connects and says hello. With `reconnectFor`, the link rides through restarts of the
    /// core for that long.
    static func open(_ options: GlobalOptions, role: ClientRole, name: String, reconnectFor window: Duration? = nil) async throws(CommandFailure) -> (Link, Welcome<AppState>) {
        let path = SocketPath.resolve(option: options.socket, environment: ProcessEnvironment.current)
        do {
            _ = try UnixSocket.address(path)
        } catch {
            throw .usage(error.description, program: ShellCommand.program)
        }
        let timeout = options.timeout
        // The first connection fails at once when nothing is there; later ones (after a
        // restart) are retried within the window.
        let first: ShellSession<AppState, AppAction>
        do {
            first = try await SocketClient.connect(to: path, timeout: timeout)
        } catch {
            throw failure(error)
        }
        let handedOut = FirstSession(first)
        let link = Link(hello: Hello(role: role, client: clientID, name: name), reconnection: window.map(Link.Reconnection.init)) { () throws(LinkError) in
            if let session = handedOut.take() { return session }
            return try await SocketClient.connect(to: path, timeout: timeout)
        }
        do {
            let welcome = try await link.open(timeout: options.timeout)
            return (link, welcome)
        } catch {
            throw failure(error)
        }
    }

    /// The exit status and message for a link that failed or ended.
    static func failure(_ error: LinkError) -> CommandFailure {
        switch error {
        case let .unreachable(reason), let .noSocket(reason):
            return CommandFailure(.unreachable, "\(reason); start a core with 'cama-launch --detach' (or 'swift run cama-launch')")
        case let .timedOut(reason):
            return CommandFailure(.unreachable, "\(reason); is the core overloaded or stopped? see 'cama-launch status'")
        case let .versionMismatch(error):
            return CommandFailure(.protocolError, error.message)
        case .protocolError:
            return CommandFailure(.protocolError, "protocol error: \(error)")
        case let .closed(reason):
            return CommandFailure(.unreachable, "\(reason); check that the core is running ('cama-launch status')")
        case .goodbye:
            return CommandFailure(.unreachable, "\(error); start it again with 'cama-launch --detach'")
        case let .untrusted(reason):
            return CommandFailure(.unreachable, reason)
        }
    }
}

/// Ends the process with a failure if it is not stopped in time: one-shot commands use it so
/// that a core that stops answering can never make them hang. Its countdown is a timer of the
/// event loop, so restarting it for every answer (`send -`) leaves nothing behind.
final class Watchdog: Sendable {
    private let timer = Mutex<EventLoop.Timer?>(nil)
    private let timeout: Duration
    private let message: String

    init(timeout: Duration, message: String) {
        self.timeout = timeout
        self.message = message
    }

    /// Starts (or restarts) the countdown.
    func reset() {
        let timeout = self.timeout
        let message = self.message
        timer.withLock { current in
            if let current { EventLoop.shared.cancel(current) }
            current = EventLoop.shared.schedule(after: timeout) {
                StandardStreams.fail(CoreConnection.failure(.timedOut("\(message) within \(timeout.readable)")), program: ShellCommand.program)
            }
        }
    }

    func stop() {
        timer.withLock { current in
            if let current { EventLoop.shared.cancel(current) }
            current = nil
        }
    }
}

/// The session a command opened first, handed to its link once.
private final class FirstSession: Sendable {
    private let session: Mutex<ShellSession<AppState, AppAction>?>

    init(_ session: ShellSession<AppState, AppAction>) {
        self.session = Mutex(session)
    }

    func take() -> ShellSession<AppState, AppAction>? {
        session.withLock { session in
            defer { session = nil }
            return session
        }
    }
}
