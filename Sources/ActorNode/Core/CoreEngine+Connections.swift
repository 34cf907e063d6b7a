import CSystemShims
import Glibc
import Wire

/// Connections and I/O: accepting clients on the listening socket (and pausing when out of
/// descriptors), the handshake's deadline, reading what a client sent into its frame decoder
/// and handing its whole frames on (while it reads its answers), the end of its stream, and
/// the input budget that all clients' partial frames share.
extension CoreEngine {
    // MARK: Accepting

    func acceptReady() {
        guard let listener else { return }
        while true {
            guard clients.count < limits.maximumClients else {
                // Not the last descriptors: they are the journal's and the runtime's.
                if !acceptStarved {
                    acceptStarved = true
                    logStarvation(EMFILE)
                }
                pauseAccepting()
                return
            }
            let accepted = cama_accept_nonblocking(listener.fd)
            if accepted >= 0 {
                if acceptStarved {
                    acceptStarved = false
                    log("accepting connections again (\(clients.count) clients connected)")
                }
                let credentials = UnixSocket.peerCredentials(accepted)
                if let peer = credentials, peer.uid != getuid(), peer.uid != 0 {
                    // The socket is new and its buffer empty: this small write cannot block.
                    let refusal = ServerMessage<JSONValue>.error(ErrorMessage(.permissionDenied, "this core serves user \(getuid()) only")).frame()
                    _ = refusal.withUnsafeBytes { Glibc.send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    close(accepted)
                    log("refused a connection from pid \(peer.pid), user \(peer.uid)")
                    continue
                }
                let peer = credentials.map { "pid \($0.pid)" } ?? "unknown peer"
                addClient(fd: accepted, peer: peer)
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                let code = errno
                if !acceptStarved {
                    acceptStarved = true
                    logStarvation(code)
                }
                pauseAccepting()
                return
            default:
                return
            }
        }
    }

    /// Out of descriptors (or at the most clients it takes): stop watching the listener for
    /// 100 ms, so the loop does not spin on a backlog it cannot accept from; clients wait in the
    /// backlog meanwhile.
    func pauseAccepting() {
        guard let listener, !acceptPaused else { return }
        acceptPaused = true
        loop.modify(listener.fd, token: listener.token, events: 0)
        loop.schedule(after: .milliseconds(100)) { [weak self] in
            self?.onLoopThread { engine in
                engine.acceptPaused = false
                guard let listener = engine.listener else { return }
                engine.loop.modify(listener.fd, token: listener.token, events: EPOLLIN.rawValue)
            }
        }
    }

    func logStarvation(_ code: Int32) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        switch code {
        case EMFILE:
            log("cannot accept connections: \(clients.count) clients connected use what this process may have of its \(limit.rlim_cur) file descriptors ('ulimit -n'), less \(DescriptorLimit.reserve) it keeps for itself; waiting for some to close (raise the limit to serve more)")
        case ENFILE:
            log("cannot accept connections: the system is out of file descriptors (\(clients.count) clients connected); waiting for some to close")
        default:
            log("cannot accept connections: \(SystemError("accept", code: code).reason) (\(clients.count) clients connected); trying again shortly")
        }
    }

    func addClient(fd: Int32, peer: String) {
        var size = Int32(limits.kernelSendBuffer)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let number = nextNumber
        nextNumber += 1
        let timer = loop.schedule(after: limits.handshakeTimeout) { [weak self] in
            self?.onLoopThread { $0.handshakeExpired(number) }
        }
        let client = EngineClient(
            number: number, fd: fd, peer: peer,
            decoder: FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength, maximumFirstPayloadLength: limits.maximumFirstPayloadLength),
            phase: .awaitingHello(timer))
        let port = EnginePort(number: number, sink: self)
        do {
            client.token = try loop.register(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, handler: port)
            client.interest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        } catch {
            loop.cancel(timer)
            close(fd)
            log("\(peer): cannot watch the connection (\(error))")
            return
        }
        clients[number] = client
    }

    func handshakeExpired(_ number: Int) {
        guard let client = clients[number], case .awaitingHello = client.phase, !client.finishing else { return }
        violation(number, ErrorMessage(.handshakeTimeout, "no hello within \(limits.handshakeTimeout.readable); send hello first"))
    }

    // MARK: Reading

    func clientReady(_ number: Int, events: UInt32) {
        guard let client = clients[number] else { return }
        if events & EPOLLOUT.rawValue != 0 || events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            touched.insert(client)
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            read(client)
        }
    }

    /// Reads what the client sent and handles its whole frames. (The client is looked up once
    /// and held: the table is searched at every lookup.)
    func read(_ client: EngineClient) {
        let number = client.number
        var budget = 256 << 10
        while budget > 0, !client.gone, !client.finishing, !client.inputEnded, canRead(client) {
            let count = scratch.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                budget -= count
                scratch.withUnsafeBytes { client.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0 ..< count])) }
                handleFrames(client)
                updateBudget(client)
                // A short read took all there was: epoll says when there is more, and a read
                // that would only say "nothing yet" is saved.
                if count < scratch.count { break }
            } else if count == 0 {
                endOfStream(number)
                return
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return
            } else if errno == ECONNRESET, !client.decoder.hasPartialFrame {
                endOfStream(number)
                return
            } else {
                log("\(client.peer): \(SystemError("read"))")
                dropClient(number)
                return
            }
        }
        touched.insert(client)
    }

    /// Whether a client may be read from now: it is not ending, and it reads its answers.
    func canRead(_ client: EngineClient) -> Bool {
        !client.finishing && client.output.unsent < limits.outputReadLimit
            && client.output.answers + client.owed + client.held.count < limits.unansweredLimit
    }

    /// Takes every whole frame the client's decoder holds, while it may be read from.
    func handleFrames(_ client: EngineClient) {
        let number = client.number
        while !client.gone, canRead(client) {
            let frame: ArraySlice<UInt8>?
            do {
                frame = try client.decoder.nextFrameSlice()
            } catch {
                switch error {
                case let .payloadTooLarge(length, limit):
                    let when = client.hello == nil ? " before hello" : ""
                    log("\(client.peer): frame of \(length) bytes refused\(when)")
                    violation(number, ErrorMessage(.frameTooLarge, "a frame announced \(length) bytes; the limit\(when) is \(limit)"))
                default:
                    log("\(client.peer): \(error)")
                    violation(number, ErrorMessage(.truncatedFrame, error.description))
                }
                return
            }
            guard let frame else {
                if !heldBack.isEmpty { heldBack.remove(number) }
                if client.inputEnded { endInput(client) }
                return
            }
            handle(frame, from: client)
        }
        if !client.gone, client.decoder.bufferedByteCount > 0 { heldBack.insert(number) }
    }

    /// The client's stream ended. Whole frames may still wait in its decoder, behind the limit
    /// on unanswered actions: they are handled as it reads its answers, and its session ends
    /// after them (``endInput(_:)``).
    func endOfStream(_ number: Int) {
        guard let client = clients[number], !client.inputEnded else { return }
        client.inputEnded = true
        handleFrames(client)
    }

    /// Every whole frame of a client whose stream ended is handled: what is left is part of a
    /// frame (truncated), or nothing (the session ends).
    func endInput(_ client: EngineClient) {
        let number = client.number
        guard !client.finishing else { return }
        if client.decoder.hasPartialFrame {
            do {
                try client.decoder.finish()
            } catch {
                log("\(client.peer): \(error)")
                violation(number, ErrorMessage(.truncatedFrame, error.description))
                return
            }
        }
        finish(number)
    }

    // MARK: The input budget

    /// Keeps the input budget: what partial frames all clients hold. Past four times
    /// ``Limits/inputBudget``, the clients holding the most are let go, biggest first, until the
    /// rest fit.
    func updateBudget(_ client: EngineClient) {
        guard !client.gone else { return }
        let held = client.decoder.bufferedByteCount
        budgetTotal += held - client.budgetHeld
        client.budgetHeld = held
        let limit = limits.inputBudget > Int.max / 4 ? Int.max : limits.inputBudget * 4
        guard budgetTotal > limit else { return }
        for (victim, client) in clients.sorted(by: { $0.value.budgetHeld > $1.value.budgetHeld }) {
            guard budgetTotal > limit, client.budgetHeld > 0 else { break }
            let held = client.budgetHeld
            log("\(client.peer): disconnected: it held \(held) bytes of unprocessed input when all clients together passed \(limit) bytes")
            budgetTotal -= held
            clients[victim]!.budgetHeld = 0
            clients[victim]!.decoder = FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength)
            violation(victim, ErrorMessage(.tooLarge, "this client held \(held) bytes of input the core had not processed, and all clients together passed the core's limit of \(limit) bytes; send fewer or smaller frames at a time, and read the answers"))
        }
    }
}
