import Glibc
import Wire

/// Drives a ``ClientMachine`` on the calling thread with blocking waits, for the commands that
/// have nothing else to do while they wait (`send` of one action, `state`, `watch`): plain
/// system calls (`connect`, `send`, `recv`, `poll`), no event loop thread, no tasks.
///
/// With a deadline for the whole command (`send`'s), no wait goes past it: the command ends
/// with ``OneShotHalt/outOfTime``.
///
/// Never use it from Swift's cooperative pool: its waits block the thread.
///
/// Its state is marked `@exclusivity(unchecked)`, as the core engine's is (see `CoreEngine`):
/// one thread uses it, and none of its accesses calls out to code that could come back to it
/// (the compiler's static check still covers each function). The run-time check cost a
/// watcher about 1,000 instructions a state printed (callgrind).
package final class BlockingClient {
    /// The protocol's state: the mirror, the welcome, what is unanswered.
    @exclusivity(unchecked) package private(set) var machine: ClientMachine
    /// Opens a connection to the core (a socket here, or ssh to another machine): the
    /// connected socket, or why not.
    private let connection: () throws(LinkError) -> Int32
    /// The whole command's deadline, if it has one.
    private let giveUp: MonotonicClock.Instant?
    @exclusivity(unchecked) private var stream: BlockingStream?
    /// What the machine wrote since the last wait: it goes out in one write just before the
    /// next wait (or the close), so that a hello and the action after it reach the core
    /// together, and the core reads both in one turn.
    @exclusivity(unchecked) private var outbox: [UInt8] = []
    /// Events the machine gave that the caller has not taken yet.
    @exclusivity(unchecked) private var pending: [ClientEvent] = []

    /// - Parameters:
    ///   - machine: the protocol's state, not started.
    ///   - giveUp: the whole command's deadline, if it has one.
    ///   - connect: opens a connection to the core, on this thread (it may block).
    package init(machine: ClientMachine, giveUp: MonotonicClock.Instant? = nil, connect: @escaping () throws(LinkError) -> Int32) {
        self.connection = connect
        self.machine = machine
        self.giveUp = giveUp
    }

    /// Connects and says hello, trying again as the machine's rules say, until welcomed.
    /// - Returns: the welcome.
    /// - Throws: how it failed.
    package func open() throws(OneShotHalt) -> ReceivedWelcome {
        start()
        while true {
            for event in pending {
                if case let .ended(error) = event { throw .failed(error ?? .closed("this client closed the link")) }
            }
            if machine.isOpen, let welcome = machine.welcome {
                pending.removeAll { if case .welcomed = $0 { true } else { false } }
                return welcome
            }
            try wait(before: nil, unlessDrained: false)
        }
    }

    /// Connects and says hello without waiting for the welcome: an action submitted next goes
    /// right after the hello, in the same round trip (``ClientMachine/submit(_:)``). Call it
    /// instead of ``open()``, not before it.
    package func start() {
        perform(machine.start(now: .now))
    }

    /// Numbers `action` and sends it (or keeps it for when the core is back).
    /// - Parameter action: the action's JSON.
    /// - Returns: its sequence number.
    package func submit(_ action: [UInt8]) throws(OneShotHalt) -> UInt64 {
        do throws(LinkError) {
            let (seq, outputs) = try machine.submit(action)
            perform(outputs)
            return seq
        } catch {
            throw .failed(error)
        }
    }

    /// Sends a query about the past; its entries and reply come as events.
    /// - Parameter query: the query.
    package func ask(_ query: Query) throws(OneShotHalt) {
        do throws(LinkError) {
            perform(try machine.ask(query))
        } catch {
            throw .failed(error)
        }
    }

    /// Waits for the answer to the action numbered `seq`; other events are let go (a script is
    /// sent nothing else it needs).
    /// - Parameter seq: what ``submit(_:)`` returned.
    package func outcome(of seq: UInt64) throws(OneShotHalt) -> ActionOutcome {
        while true {
            for event in try events(before: nil) {
                switch event {
                case let .answered(answered, outcome) where answered == seq:
                    return outcome
                case let .ended(error):
                    throw .failed(error ?? .closed("this client closed the link"))
                default:
                    continue
                }
            }
        }
    }

    /// The events that came since the last call, waiting for some until `deadline`; none when
    /// it passed first.
    /// - Parameters:
    ///   - deadline: when to stop waiting (nil: as long as it takes, or the whole command's
    ///     deadline).
    ///   - unlessDrained: return at once, with none, when everything the last read brought has
    ///     been taken: the caller shows what it has before waiting.
    package func events(before deadline: MonotonicClock.Instant?, unlessDrained: Bool = false) throws(OneShotHalt) -> [ClientEvent] {
        var events: [ClientEvent] = []
        try takeEvents(before: deadline, unlessDrained: unlessDrained, into: &events)
        return events
    }

    /// ``events(before:unlessDrained:)`` into the caller's array, which is emptied first and
    /// whose storage the client keeps for the events to come: a caller that asks again and
    /// again (a watcher, at every state) makes no array each time.
    /// - Parameters:
    ///   - deadline: when to stop waiting (nil: as long as it takes, or the whole command's
    ///     deadline).
    ///   - unlessDrained: return at once, with none, when everything the last read brought has
    ///     been taken.
    ///   - events: where the events go.
    package func takeEvents(before deadline: MonotonicClock.Instant?, unlessDrained: Bool = false, into events: inout [ClientEvent]) throws(OneShotHalt) {
        events.removeAll(keepingCapacity: true)
        while pending.isEmpty {
            if machine.isEnded { return }
            guard try wait(before: deadline, unlessDrained: unlessDrained) else { return }
        }
        swap(&events, &pending)
    }

    /// Says bye and closes the connection.
    package func close() {
        perform(machine.close())
        pending.removeAll()
    }

    // MARK: Doing what the machine says

    private func perform(_ outputs: [ClientOutput]) {
        for output in outputs {
            switch output {
            case .connect:
                connect()
            case let .write(bytes):
                if stream != nil { outbox += bytes }
            case .disconnect:
                flush()
                stream?.close()
                stream = nil
            case let .event(event):
                pending.append(event)
            }
        }
    }

    /// Writes what the machine wrote since the last wait.
    private func flush() {
        guard !outbox.isEmpty else { return }
        defer { outbox.removeAll(keepingCapacity: true) }
        // A failed write shows when reading: the core closed the connection.
        if let stream, !stream.write(outbox, before: giveUp ?? .now + machine.timeout) {
            stream.shutdownWriting()
        }
    }

    private func connect() {
        outbox.removeAll()
        do throws(LinkError) {
            let fd = try connection()
            stream = BlockingStream(fd: fd)
            perform(machine.connected(now: .now))
        } catch {
            perform(machine.connectFailed(error, now: .now))
        }
    }

    /// Waits for bytes (or the machine's next deadline), and hands them to the machine.
    /// - Returns: false when `deadline` passed (or, with `unlessDrained`, nothing was at hand).
    @discardableResult
    private func wait(before deadline: MonotonicClock.Instant?, unlessDrained: Bool) throws(OneShotHalt) -> Bool {
        flush()
        // An open connection, waiting as long as it takes (a watcher's, twice a state): no
        // clock read before the wait.
        if giveUp == nil, deadline == nil, machine.deadline == nil, let stream {
            if unlessDrained {
                if stream.drained { return false }
            } else {
                switch stream.read(before: nil) {
                case .bytes:
                    let now = MonotonicClock.Instant.now
                    perform(stream.withReceived { machine.received($0, now: now) })
                case .ended:
                    perform(machine.connectionEnded(now: .now))
                case .timedOut:
                    break
                }
                return true
            }
        }
        let due = machine.deadline
        if let due, due <= .now {
            perform(machine.tick(now: .now))
            return true
        }
        // Mostly none of them (a watcher's open connection): no instants compared.
        var limit = deadline == nil && due == nil && giveUp == nil ? nil : Self.earliest(Self.earliest(deadline, due), giveUp)
        guard let stream else {
            // No connection: only the machine's timer can change anything.
            if let limit { Self.sleep(until: limit) }
            if let giveUp, MonotonicClock.Instant.now >= giveUp { throw .outOfTime }
            if machine.deadline != nil { perform(machine.tick(now: .now)) }
            return deadline.map { MonotonicClock.Instant.now < $0 } ?? true
        }
        if unlessDrained {
            // Everything the last read brought is taken: nothing is at hand, without asking
            // the system; else what more there is, without waiting for it.
            if stream.drained { return false }
            limit = .now
        }
        switch stream.read(before: limit) {
        case .bytes:
            let now = MonotonicClock.Instant.now
            perform(stream.withReceived { machine.received($0, now: now) })
            return true
        case .ended:
            perform(machine.connectionEnded(now: .now))
            return true
        case .timedOut:
            if let giveUp, MonotonicClock.Instant.now >= giveUp { throw .outOfTime }
            if let due = machine.deadline, due <= .now { perform(machine.tick(now: .now)) }
            if unlessDrained { return false }
            return deadline.map { MonotonicClock.Instant.now < $0 } ?? true
        }
    }

    /// The earlier of two optional instants (nil when both are).
    private static func earliest(_ a: MonotonicClock.Instant?, _ b: MonotonicClock.Instant?) -> MonotonicClock.Instant? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// What a failed connection attempt means to the machine.
    static func linkError(_ error: ServerConnector.Failure) -> LinkError {
        switch error {
        case let .noSocket(reason): .noSocket(reason)
        case let .unreachable(reason), let .badPath(reason): .unreachable(reason)
        case let .timedOut(reason): .timedOut(reason)
        case let .untrusted(reason): .untrusted(reason)
        }
    }

    private static func sleep(until instant: MonotonicClock.Instant) {
        while true {
            let left = MonotonicClock.Instant.now.duration(to: instant)
            guard left > .zero else { return }
            let (seconds, attoseconds) = left.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)
        }
    }
}

/// How a step of a blocking command ended when it did not succeed.
package enum OneShotHalt: Error {
    case failed(LinkError)
    /// The whole command's deadline passed.
    case outOfTime
}

/// A connected socket read and written by one thread that waits on it with `poll`. Its state
/// is marked `@exclusivity(unchecked)` for the reason its ``BlockingClient``'s is.
final class BlockingStream {
    enum Read {
        /// Bytes came: ``withReceived(_:)`` hands them over.
        case bytes
        case ended
        case timedOut
    }

    private let fd: Int32
    @exclusivity(unchecked) private var isClosed = false
    /// The last read took everything the socket held (it filled less than the buffer).
    @exclusivity(unchecked) private(set) var drained = false
    /// Where reads land; it grows (up to 1 MiB) while reads fill it, as for a large state.
    @exclusivity(unchecked) private var scratch = BlockingStream.buffer(64 << 10)
    /// How many bytes of ``scratch`` the last read brought.
    @exclusivity(unchecked) private var received = 0

    /// A buffer for reads, left as it comes: a read writes the bytes it returns before
    /// anything looks at them, and a page that no read reaches is never touched (zeroing 64
    /// KiB cost a one-shot command 16 page faults and 65,000 instructions).
    private static func buffer(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// - Parameter fd: a connected stream socket, which this object owns. It is put in
    ///   blocking mode: each call says whether it may wait (`MSG_DONTWAIT`), so that a read
    ///   without a deadline waits in the read itself, one system call per wake.
    init(fd: Int32) {
        self.fd = fd
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
    }

    /// Writes all of `bytes` before `deadline`; false if the connection failed or time ran out.
    func write(_ bytes: [UInt8], before deadline: MonotonicClock.Instant) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: guard wait(for: Int16(POLLOUT), before: deadline) else { return false }
            default: return false
            }
        }
        return true
    }

    /// What the socket holds, waiting for it until `deadline` (nil: as long as it takes).
    func read(before deadline: MonotonicClock.Instant?) -> Read {
        while true {
            // The last read filled the buffer: the next may bring more.
            if received == scratch.count, scratch.count < 1 << 20 {
                scratch = Self.buffer(scratch.count * 2)
            }
            received = 0
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, deadline == nil ? 0 : Int32(MSG_DONTWAIT)) }
            drained = count >= 0 && count < scratch.count
            if count > 0 {
                received = count
                return .bytes
            }
            if count == 0 { return .ended }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                guard wait(for: Int16(POLLIN), before: deadline) else { return .timedOut }
            default:
                return .ended
            }
        }
    }

    /// Hands `body` the bytes the last read brought (where they landed: no copy).
    func withReceived<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        scratch.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<received])) }
    }

    /// Stops writing: the core reads the end of the stream.
    func shutdownWriting() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Waits until the socket is ready for `events` or has failed; false once `deadline` passes.
    private func wait(for events: Int16, before deadline: MonotonicClock.Instant?) -> Bool {
        while true {
            if let deadline, deadline <= .now { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, PollTimeout.milliseconds(until: deadline))
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
    }
}
