import Glibc
import Wire

/// `bridge`: copies the bytes of its standard input to the core's socket and the socket's to
/// its standard output, as `git-upload-pack` or `docker system dial-stdio` do, so that a client
/// on another machine reaches the core through the user's own `ssh HOST shell-client bridge`.
/// It makes the same checks of the socket's directory and of the peer as every local client,
/// and forwards bytes without reading them: the protocol is the client's and the core's.
///
/// It runs on the calling thread alone, one `poll` for both ways, with no blocking write: a
/// side that does not read holds back only what goes to it (at most ``bufferLimit`` waits for
/// it), never the other way, so a core that stops reading a client that does not read its
/// answers cannot wedge the bridge. It ends when its input ends (the socket is then half-closed
/// and what the core still sends is passed on until the core closes), when the core closes, or
/// when its output is gone; SIGHUP, as a lost ssh connection sends, ends it at once.
enum BridgeCommand<App: ShellApp> {
    /// The most bytes that wait for one side before the other is no longer read.
    static var bufferLimit: Int { 1 << 20 }

    static func run(options: ShellOptions) throws(CommandFailure) -> ExitStatus {
        // The socket here, always: the bridge is the far end of --ssh (which it refuses).
        let route = try CoreConnection<App>.route(options)
        let socket: Int32
        do throws(LinkError) {
            socket = try route.connectBlocking(timeout: options.timeout)
        } catch {
            throw CoreConnection<App>.failure(error)
        }
        defer { close(socket) }
        // The greeting says that the core answered, before the protocol's first byte (see
        // ``BridgeGreeting``): a client over ssh tells this apart from noise and failures.
        guard StandardStreams.writeNow(1, BridgeGreeting.line) else { return .success }
        // Non-blocking while it relays; the streams' own flags back after, as they may be shared
        // with the process that started this one.
        let flags = [0, 1].map { fcntl($0, F_GETFL) }
        defer { for (descriptor, flag) in zip([Int32(0), 1], flags) where flag >= 0 { _ = fcntl(descriptor, F_SETFL, flag) } }
        var relay = Relay(input: 0, output: 1, socket: socket, filter: options.readOnly ? ReadOnlyFilter() : nil)
        relay.run()
        return .success
    }

    /// Both ways between the standard streams and the socket.
    private struct Relay {
        let input: Int32
        let output: Int32
        let socket: Int32
        /// With `--read-only`: what reads the frames and refuses actions.
        private var filter: ReadOnlyFilter?
        /// Bytes read from the input, for the socket; and from the socket, for the output.
        private var toSocket = Pending()
        private var toOutput = Pending()
        private var inputOpen = true
        private var socketOpen = true
        private var scratch = [UInt8](repeating: 0, count: 64 << 10)

        init(input: Int32, output: Int32, socket: Int32, filter: ReadOnlyFilter?) {
            self.input = input
            self.output = output
            self.socket = socket
            self.filter = filter
            for descriptor in [input, output, socket] {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            }
        }

        mutating func run() {
            while socketOpen || !toOutput.isEmpty {
                var descriptors = [
                    pollfd(fd: inputOpen && toSocket.count < BridgeCommand.bufferLimit ? input : -1, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: socketOpen ? socket : -1, events: Int16((toOutput.count < BridgeCommand.bufferLimit ? POLLIN : 0) | (toSocket.isEmpty ? 0 : POLLOUT)), revents: 0),
                    pollfd(fd: toOutput.isEmpty ? -1 : output, events: Int16(POLLOUT), revents: 0),
                ]
                guard poll(&descriptors, 3, -1) >= 0 || errno == EINTR else { return }
                if descriptors[0].revents != 0 { readInput() }
                if descriptors[1].revents & Int16(POLLOUT | POLLERR) != 0 { writeSocket() }
                if descriptors[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readSocket() }
                if descriptors[2].revents != 0, !writeOutput() { return }
            }
        }

        private mutating func readInput() {
            let count = read(input, &scratch, scratch.count)
            // In place (optional chaining), so that the filter's buffers are never copied.
            if count > 0, let passage = filter?.fromClient(scratch[0 ..< count]) {
                toSocket.append(passage.toCore[...])
                toOutput.append(passage.toClient[...])
                if filter?.isBroken == true {
                    // The client broke the protocol: it has its error, and the core is let go.
                    inputOpen = false
                    socketOpen = false
                }
                writeSocket()
                _ = writeOutput()
            } else if count > 0 {
                toSocket.append(scratch[0 ..< count])
                writeSocket()
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                inputOpen = false
                // What the client sent is all it will send; the core answers it and closes.
                if toSocket.isEmpty { shutdown(socket, Int32(SHUT_WR)) }
            }
        }

        private mutating func readSocket() {
            let count = read(socket, &scratch, scratch.count)
            if count > 0, let frames = filter?.fromCore(scratch[0 ..< count]) {
                toOutput.append(frames[...])
                _ = writeOutput()
            } else if count > 0 {
                toOutput.append(scratch[0 ..< count])
                _ = writeOutput()
            } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                socketOpen = false
            }
        }

        private mutating func writeSocket() {
            guard socketOpen else { return }
            guard toSocket.write(to: socket) else {
                socketOpen = false
                return
            }
            if toSocket.isEmpty, !inputOpen { shutdown(socket, Int32(SHUT_WR)) }
        }

        /// False when the output is gone: nobody reads what the core says any more.
        private mutating func writeOutput() -> Bool {
            toOutput.write(to: output)
        }
    }

    /// Bytes waiting for one side, written as far as it takes them.
    private struct Pending {
        private var bytes: [UInt8] = []
        private var offset = 0

        var count: Int { bytes.count - offset }
        var isEmpty: Bool { count == 0 }

        mutating func append(_ more: ArraySlice<UInt8>) {
            // What was written goes once it is most of the buffer, so that a side that keeps
            // taking a part never lets the buffer grow past what waits for it.
            if offset > 0, offset >= bytes.count / 2 {
                bytes.removeSubrange(0 ..< offset)
                offset = 0
            }
            bytes += more
        }

        /// Writes what the descriptor takes now; false if it is broken.
        mutating func write(to descriptor: Int32) -> Bool {
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if written >= 0 {
                    offset += written
                    continue
                }
                if errno == ENOTSOCK {
                    // A pipe or a terminal: write(2) (SIGPIPE is ignored by the shell's main).
                    let plain = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                    if plain >= 0 {
                        offset += plain
                        continue
                    }
                }
                if errno == EINTR { continue }
                return errno == EAGAIN
            }
            bytes.removeAll(keepingCapacity: true)
            offset = 0
            return true
        }
    }
}
