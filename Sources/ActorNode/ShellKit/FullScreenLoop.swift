import CSystemShims
import Glibc
import Synchronization
import Wire

/// The full-screen shell's one loop, as the core has one: the socket, the keys, the signals and
/// the timers on one thread that waits in `poll`, driving a ``ClientMachine`` and the app's
/// ``FullScreenInterface``. A key is read, turned into actions, and their frames written to
/// the socket in one turn; a rendition is read, applied to the mirror, and the new frame drawn
/// in one turn. Only the terminal's writes leave the loop, for a writer thread
/// (``BlockingWriter``), so a paused terminal never holds up the socket.
///
/// The signals it handles (a resize, the stop signals) must be blocked in every thread
/// (``Signals/block(_:)``, first thing in `main`); the loop takes them from a `signalfd`.
///
/// The first connection is made before the screen is taken (ssh may ask for a password on the
/// terminal then). Later ones, which can take long (ssh to a host that is unreachable for a
/// while), are dialled on a thread of their own (``Dial``): the loop keeps reading keys and
/// drawing meanwhile, so `q` always quits and keys typed in the meantime are kept and sent.
final class FullScreenLoop<Interface: FullScreenInterface> {
    private var machine: ClientMachine
    private var interface: Interface
    /// Opens a connection to the core (a connected socket's descriptor).
    private let connect: @Sendable () throws(LinkError) -> Int32
    /// A connection being made on a thread of its own, if one is.
    private var dial: Dial?
    private let keysFD: Int32
    private let signalFD: Int32
    private let terminal: BlockingWriter
    private var socket: Int32 = -1
    /// Bytes for the socket that it did not take yet.
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var started = false
    private var wakeAt: MonotonicClock.Instant?
    /// A change the interface has not been shown yet.
    private var stateChanged = false
    /// The state at the machine's revision, typed, when it is known without decoding the
    /// mirror: patched in place when the state is ``Patchable``.
    private var typed: Interface.State?
    private var ending: FullScreenOutcome?
    /// Said on stderr once the terminal is given back: the state had to be asked for whole.
    private var resyncNote: String?
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    /// - Parameters:
    ///   - machine: the protocol's state, not started.
    ///   - interface: the app's interface, not started.
    ///   - signals: the signals to take (blocked in every thread).
    ///   - keys: where keys are read (the terminal: 0).
    ///   - terminal: where frames are written.
    ///   - connect: opens a connection to the core.
    init(
        machine: ClientMachine, interface: Interface, signals: [Int32], keys: Int32 = 0,
        terminal: BlockingWriter = .standardOutput, connect: @escaping @Sendable () throws(LinkError) -> Int32
    ) {
        self.machine = machine
        self.interface = interface
        self.connect = connect
        keysFD = keys
        self.terminal = terminal
        var set = Signals.signalSet(signals)
        signalFD = signals.isEmpty ? -1 : signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
    }

    deinit {
        if socket >= 0 { close(socket) }
        if signalFD >= 0 { close(signalFD) }
        dial?.abandon()
    }

    /// Runs until the session ends; the terminal is given back however it ends.
    /// - Returns: how it ended.
    /// - Throws: the interface's refusal to start (no terminal to take over).
    func run() throws(CommandFailure) -> FullScreenOutcome {
        defer {
            if started {
                terminal.flushBlocking(timeout: .seconds(2))
                interface.stop()
            }
            if let resyncNote { StandardStreams.writeNow(2, Array("\(machine.hello.name): \(resyncNote)\n".utf8)) }
        }
        perform(machine.start(now: .now))
        while true {
            if let ending {
                if case .quit = ending { perform(machine.close()) }
                return ending
            }
            if machine.isOpen, !started {
                try interface.start()
                started = true
                take(.presence(shells: machine.shells))
                stateChanged = true
            }
            if stateChanged, started, ending == nil { showState() }
            if started, ending == nil { draw() }
            waitAndHandle()
        }
    }

    // MARK: Waiting

    private func waitAndHandle() {
        var descriptors: [pollfd] = []
        var socketIndex: Int?
        if socket >= 0 {
            socketIndex = descriptors.count
            descriptors.append(pollfd(fd: socket, events: Int16(POLLIN) | (outboundOffset < outbound.count ? Int16(POLLOUT) : 0), revents: 0))
        }
        var keysIndex: Int?
        if started, keysFD >= 0 {
            keysIndex = descriptors.count
            descriptors.append(pollfd(fd: keysFD, events: Int16(POLLIN), revents: 0))
        }
        var signalIndex: Int?
        if signalFD >= 0 {
            signalIndex = descriptors.count
            descriptors.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0))
        }
        var dialIndex: Int?
        if let dial {
            dialIndex = descriptors.count
            descriptors.append(pollfd(fd: dial.wakeFD, events: Int16(POLLIN), revents: 0))
        }
        let deadline = [machine.deadline, wakeAt].compactMap { $0 }.min()
        let ready = poll(&descriptors, nfds_t(descriptors.count), PollTimeout.milliseconds(until: deadline))
        if ready < 0, errno != EINTR { ending = .lost(.closed("poll failed: \(SystemError("poll"))")) }
        let now = MonotonicClock.Instant.now
        if let signalIndex, descriptors[signalIndex].revents != 0 { takeSignals() }
        if let socketIndex, descriptors[socketIndex].revents != 0 {
            if descriptors[socketIndex].revents & Int16(POLLOUT) != 0 { flush() }
            if descriptors[socketIndex].revents & ~Int16(POLLOUT) != 0 { readSocket() }
        }
        if let keysIndex, descriptors[keysIndex].revents != 0 { readKeys() }
        if let dialIndex, descriptors[dialIndex].revents != 0, let result = dial?.take() {
            dial = nil
            dialed(result)
        }
        if let due = machine.deadline, due <= now { perform(machine.tick(now: now)) }
        if let wake = wakeAt, wake <= now {
            wakeAt = nil
            take(.wake)
        }
    }

    private func readSocket() {
        // What one wake brings, up to a bound, so that keys are read between large bursts.
        for _ in 0 ..< 16 {
            guard socket >= 0, ending == nil else { return }
            let count = scratch.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                let outputs = scratch.withUnsafeBytes { machine.received(UnsafeRawBufferPointer(rebasing: $0[..<count]), now: .now) }
                perform(outputs)
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            perform(machine.connectionEnded(now: .now))
            return
        }
    }

    private func readKeys() {
        let count = scratch.withUnsafeMutableBytes { read(keysFD, $0.baseAddress, $0.count) }
        if count > 0 {
            take(.keys(Array(scratch[..<count])))
        } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
            // The terminal is gone: nobody is there to type.
            ending = ending ?? .quit
        }
    }

    private func takeSignals() {
        var info = signalfd_siginfo()
        while read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            let signal = Int32(info.ssi_signo)
            if signal == SIGWINCH {
                if started { take(.resized) }
            } else {
                ending = ending ?? .stopped(signal)
            }
        }
    }

    // MARK: The machine

    private func perform(_ outputs: [ClientOutput]) {
        for output in outputs {
            switch output {
            case .connect where !started:
                // Before the screen is taken: here, so that ssh may ask on the terminal.
                let connect = self.connect
                dialed(Result { () throws(LinkError) in try connect() })
            case .connect:
                dial = Dial(connect)
            case let .write(bytes):
                outbound += bytes
                flush()
            case .disconnect:
                if socket >= 0 {
                    flush()
                    close(socket)
                }
                socket = -1
                outbound = []
                outboundOffset = 0
            case let .event(event):
                switch event {
                case .welcomed:
                    break
                case let .changed(_, patch):
                    stateChanged = true
                    follow(patch)
                case let .answered(_, .rejected(reject)):
                    take(.rejected(reject))
                case .answered:
                    break
                case let .resyncing(revision, reason):
                    // Said once the terminal is given back: not on top of the screen.
                    resyncNote = resyncNote ?? ClientEvent.resyncNote(revision: revision, reason: reason)
                case let .notice(text):
                    // A notice follows the state it came after.
                    if stateChanged, started { showState() }
                    take(.notice(text))
                case let .presence(shells):
                    take(.presence(shells: shells))
                case let .reconnecting(reason):
                    take(.reconnecting(reason))
                case let .reconnected(revision):
                    stateChanged = true
                    typed = nil
                    take(.reconnected(revision: revision))
                case .replied, .entry:
                    break
                case let .ended(error):
                    ending = ending ?? (error.map { .lost($0) } ?? .quit)
                }
            }
        }
    }

    /// A connection attempt ended: the socket, or why not.
    private func dialed(_ result: Result<Int32, LinkError>) {
        switch result {
        case let .success(connected):
            socket = connected
            _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
            outbound = []
            outboundOffset = 0
            perform(machine.connected(now: .now))
        case let .failure(error):
            perform(machine.connectFailed(error, now: .now))
        }
    }

    /// Writes what the socket takes now; the rest waits for `POLLOUT`.
    private func flush() {
        while socket >= 0, outboundOffset < outbound.count {
            let sent = outbound.withUnsafeBytes { send(socket, $0.baseAddress! + outboundOffset, $0.count - outboundOffset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent >= 0 {
                outboundOffset += sent
            } else if errno == EINTR {
                continue
            } else {
                // EAGAIN waits for POLLOUT; a broken connection shows when reading.
                break
            }
        }
        if outboundOffset == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        }
    }

    // MARK: The interface

    private func take(_ input: FullScreenInput<Interface.State>) {
        guard started else { return }
        let reply = interface.handle(input)
        for action in reply.actions {
            do throws(LinkError) {
                let json: [UInt8]
                do {
                    json = try WireJSON.encode(action)
                } catch {
                    throw .protocolError(ErrorMessage(.internalError, "could not encode the action: \(error)"))
                }
                let (_, outputs) = try machine.submit(json)
                perform(outputs)
            } catch {
                ending = ending ?? .lost(error)
            }
        }
        if let after = reply.wakeAfter { wakeAt = .now + after }
        if reply.quit { ending = ending ?? .quit }
    }

    /// Brings the typed state along with `patch` in place, when the state is ``Patchable`` and
    /// the patch can be followed that way; otherwise forgets it, to be decoded from the mirror.
    private func follow(_ patch: JSONPatch?) {
        guard let patch, patch.isFollowableInPlace, let document = machine.document, var mirror = typed.map({ $0 as Any }) as? any Patchable else {
            typed = nil
            return
        }
        typed = nil
        do {
            for operation in patch {
                try mirror.patch(at: operation.path.tokens[...], operation: operation.op, document: document)
            }
            typed = mirror as? Interface.State
        } catch {
            typed = nil
        }
    }

    /// Hands the interface the newest state: the typed one kept up to date, or decoded from the
    /// mirror.
    private func showState() {
        stateChanged = false
        do {
            let state = try typed ?? (machine.document ?? .null).decode(as: Interface.State.self)
            typed = state
            take(.state(revision: machine.revision, state))
        } catch {
            ending = ending ?? .lost(ClientMachine.undecodableState(revision: machine.revision, error))
        }
    }

    private func draw() {
        let bytes = interface.frame()
        if !bytes.isEmpty { terminal.enqueue(bytes) }
    }
}

/// How a session on a ``FullScreenLoop`` ended.
enum FullScreenOutcome: Equatable {
    /// The user left (or the link was closed by this side).
    case quit
    /// A stop signal came.
    case stopped(Int32)
    /// The link ended on the core's side.
    case lost(LinkError)
}

/// A connection made on a thread of its own, for a loop that must not wait for it: the thread
/// keeps the result and wakes the loop through an eventfd. One lock holds the result and
/// whether the loop is gone, so exactly one side closes what is left.
private final class Dial: Sendable {
    /// Readable once the result is in.
    let wakeFD: Int32
    private struct State {
        var result: Result<Int32, LinkError>?
        /// The loop went away: a connection made after that is closed at once.
        var abandoned = false
    }

    private let state = Mutex(State())

    init(_ connect: @escaping @Sendable () throws(LinkError) -> Int32) {
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        SystemThread.detach(name: "cama-dial") { [self] in
            let made = Result { () throws(LinkError) in try connect() }
            state.withLock { state in
                if state.abandoned {
                    if case let .success(fd) = made { close(fd) }
                    close(wakeFD)
                } else {
                    state.result = made
                    var one: UInt64 = 1
                    _ = write(wakeFD, &one, 8)
                }
            }
        }
    }

    /// The result, once the eventfd said it is in; the eventfd is closed then.
    func take() -> Result<Int32, LinkError>? {
        state.withLock { state in
            guard let result = state.result else { return nil }
            state.result = nil
            state.abandoned = true
            close(wakeFD)
            return result
        }
    }

    /// The loop is done without taking the result: whatever the thread makes is closed.
    func abandon() {
        state.withLock { state in
            guard !state.abandoned else { return }
            state.abandoned = true
            if let result = state.result {
                if case let .success(fd) = result { close(fd) }
                close(wakeFD)
            }
        }
    }
}
