import Glibc
import Synchronization
import Wire

/// Opens connections to a core on another machine through ssh: each is one end of a
/// socketpair whose other end is ssh's stdin and stdout, with `shell-client bridge` on the far
/// side, so every client (blocking, full screen, on the event loop) uses it as it uses a Unix
/// socket to a local core. Reconnecting is dialling again: a new ssh, or a new session on the
/// shared ssh connection.
///
/// A dial waits for the bridge's greeting (``BridgeGreeting``), so that every way it can fail
/// is told apart and worded before the protocol starts: ssh could not connect or authenticate
/// (its own message, what to check), the remote command is not on the host's PATH (exit 127),
/// the bridge reached no core there (its message, with the host), a startup file printed on
/// stdout, or the host's CAMA speaks another protocol version.
package final class SSHDialer: Sendable {
    package let route: SSHRoute
    /// How many dials were made: the first may ask for a password or passphrase on the
    /// terminal (before any full screen starts); later ones never ask (`BatchMode`), so a
    /// prompt never lands in the middle of a screen.
    private let dials = Atomic<Int>(0)
    /// Whether the first dial may wait for someone typing at a prompt.
    private let interactive: Bool

    /// - Parameters:
    ///   - route: where and how.
    ///   - interactive: the first dial may prompt, and waits as long as ssh does (stdin is a
    ///     terminal); otherwise every dial is bounded by its timeout.
    package init(route: SSHRoute, interactive: Bool) {
        self.route = route
        self.interactive = interactive
    }

    /// Starts ssh and waits for the bridge's greeting, on the calling thread (never Swift's
    /// cooperative pool).
    /// - Parameter timeout: how long ssh and the bridge have to greet (not counted while the
    ///   first dial of an interactive command may be waiting at a prompt).
    /// - Returns: this side of the connection, non-blocking and close-on-exec; the caller owns it.
    package func dial(timeout: Duration) throws(LinkError) -> Int32 {
        let first = dials.add(1, ordering: .relaxed).oldValue == 0
        let options = route.defaultOptions() + SSHRoute.promptOptions(first: first, interactive: interactive)
        guard let (executable, arguments) = route.invocation(sshOptions: options, remote: route.remoteCommandLine) else {
            throw .remote("there is no ssh here (none on PATH); install OpenSSH's client, or set \(SSHRoute.commandVariable) to the ssh command to use")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .remote("cannot start ssh: \(SystemError("socketpair").reason)")
        }
        let errors: (read: Int32, write: Int32)
        do {
            errors = try PipePair.make(nonBlockingRead: true)
        } catch {
            close(pair[0])
            close(pair[1])
            throw .remote("cannot start ssh: \(error.reason)")
        }
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(executable, arguments: arguments, standardInput: pair[1], standardOutput: pair[1], standardError: errors.write)
        } catch {
            for descriptor in [pair[0], pair[1], errors.read, errors.write] { close(descriptor) }
            throw .remote("cannot start \(executable): \(error.reason)")
        }
        close(pair[1])
        close(errors.write)
        let ours = pair[0]
        var greeting = Greeting(socket: ours, errors: errors.read, child: child, route: route, couldPrompt: first && interactive)
        defer { close(errors.read) }
        do {
            try greeting.wait(until: first && interactive ? nil : .now + timeout, timeout: timeout)
        } catch {
            close(ours)
            throw error
        }
        _ = fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK)
        return ours
    }

    /// ``dial(timeout:)`` for an async caller: the dial blocks a thread of its own.
    package func dial(timeout: Duration) async throws(LinkError) -> Int32 {
        try await SystemThread.run(name: "cama-ssh") { Result { () throws(LinkError) in try self.dial(timeout: timeout) } }.get()
    }

    /// Waiting for the bridge's greeting, keeping what ssh says on stderr meanwhile.
    private struct Greeting {
        let socket: Int32
        let errors: Int32
        let child: ChildProcess
        let route: SSHRoute
        /// Whether ssh could ask for a password or passphrase on this connection.
        let couldPrompt: Bool
        /// What ssh (and the remote command) wrote on stderr, the last 16 KiB of it.
        var said: [UInt8] = []

        mutating func wait(until deadline: MonotonicClock.Instant?, timeout: Duration) throws(LinkError) {
            var errorsOpen = true
            while true {
                var descriptors = [
                    pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: errorsOpen ? errors : -1, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, 2, PollTimeout.milliseconds(until: deadline))
                if ready < 0, errno == EINTR { continue }
                if ready == 0 {
                    child.send(SIGTERM)
                    throw .timedOut("no answer from \(host) through ssh within \(timeout.readable) (\(lastWords.map { "ssh said: \($0)" } ?? "ssh said nothing")); check that 'ssh \(host) true' works")
                }
                if descriptors[1].revents != 0 { errorsOpen = readErrors() }
                guard descriptors[0].revents != 0 else { continue }
                var head = [UInt8](repeating: 0, count: BridgeGreeting.longest + 1)
                let count = recv(socket, &head, head.count, Int32(MSG_PEEK))
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else { throw ended() }
                switch BridgeGreeting.read(head[..<count]).0 {
                case .incomplete:
                    // More of the line is on its way; wait a moment rather than spin on it.
                    usleep(1_000)
                case let .noise(line):
                    child.send(SIGTERM)
                    throw .remoteNoise("\(host) printed \"\(PeerText.escaped(String(line.prefix(80))))\" before the bridge started: a startup file there (~/.bashrc, ~/.profile) writes to stdout for non-interactive ssh; make it print only in interactive shells")
                case let .greeting(version):
                    let consumed = BridgeGreeting.read(head[..<count]).consumed
                    var discard = [UInt8](repeating: 0, count: consumed)
                    _ = recv(socket, &discard, consumed, 0)
                    guard version == ProtocolVersion.current else {
                        child.send(SIGTERM)
                        throw .versionMismatch(ErrorMessage(
                            .versionMismatch,
                            "the bridge on \(host) speaks protocol \(version) and this client speaks \(ProtocolVersion.current)",
                            protocolVersion: version))
                    }
                    return
                }
            }
        }

        private var host: String { PeerText.escaped(route.host) }

        /// Reads what ssh wrote on stderr; false once it is closed.
        private mutating func readErrors() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(errors, &buffer, buffer.count)
                if count > 0 {
                    said += buffer[..<count]
                    if said.count > 16 << 10 { said.removeFirst(said.count - (16 << 10)) }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                return count < 0 && errno == EAGAIN
            }
        }

        /// The last line ssh or the remote command wrote on stderr, escaped.
        private var lastWords: String? { SSHRoute.lastLine(of: said) }

        /// Why ssh ended before the greeting.
        private mutating func ended() -> LinkError {
            let termination = child.termination(before: .now + .seconds(2))
            _ = readErrors()
            if termination == nil { child.send(SIGTERM) }
            return .remote(route.failure(termination, program: route.remoteCommand, said: lastWords, couldPrompt: couldPrompt))
        }
    }
}

/// This machine's name, for messages that name both ends.
package enum LocalHost {
    package static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this machine" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "this machine" : PeerText.escaped(name)
    }
}
