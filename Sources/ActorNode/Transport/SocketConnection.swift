import CSystemShims
import Glibc
import Synchronization
import Wire

/// One connected, non-blocking stream socket that speaks frames.
///
/// Reading happens on the ``EventLoop`` thread: bytes are cut into frames as they arrive and
/// queued for ``readFrame()``. When too many frames wait unread the loop stops reading, so a
/// fast peer cannot fill our memory; it resumes as the reader catches up. Writes are queued and
/// flushed as the socket accepts them; ``write(_:)`` waits while more than the high-water mark
/// is queued. Nothing here blocks a thread of Swift's cooperative pool.
package final class SocketConnection: EventHandler, Sendable {
    /// How much a connection may hold in memory.
    package struct Limits: Sendable {
        /// The largest frame payload accepted from the peer.
        package var maximumPayloadLength = Frame.defaultMaximumPayloadLength
        /// Stop reading from the socket while this many frames wait unread.
        package var inboundFrameHighWater = 256
        /// ``write(_:)`` waits while more than this many bytes wait to be sent (a frame is always
        /// queued whole, however large)...
        package var outboundHighWater = 64 << 10
        /// ...until the queue drains below this. Kept small so that a reader that falls behind
        /// is noticed early, and its renditions coalesce into snapshots instead of piling up.
        package var outboundLowWater = 16 << 10

        package init() {}
    }

    package let fd: Int32
    package let limits: Limits
    private let loop: EventLoop
    private let state: Mutex<State>

    private enum ReadEnd {
        case endOfStream
        case failed(ConnectionError)
    }

    private struct State {
        var decoder: FrameDecoder
        var frames = RingBuffer<[UInt8]>()
        var readEnd: ReadEnd?
        var reader: CheckedContinuation<Result<[UInt8]?, ConnectionError>, Never>?
        var readPaused = false

        var outbound: [UInt8] = []
        var outboundOffset = 0
        var writeFailure: ConnectionError?
        var spaceWaiters: [CheckedContinuation<Result<Void, ConnectionError>, Never>] = []
        var drainWaiters: [CheckedContinuation<Void, Never>] = []

        var closed = false
        var token: UInt64?
        var registeredEvents: UInt32 = 0

        var pendingOutbound: Int { outbound.count - outboundOffset }
    }

    /// Wraps a connected socket (which must be non-blocking) and starts reading from it.
    /// - Parameters:
    ///   - fd: the socket.
    ///   - limits: how much it may hold.
    ///   - loop: the event loop that watches it.
    package init(fd: Int32, limits: Limits = Limits(), loop: EventLoop = .shared) {
        self.fd = fd
        self.limits = limits
        self.loop = loop
        state = Mutex(State(decoder: FrameDecoder(maximumPayloadLength: limits.maximumPayloadLength)))
        var resumptions = Resumptions()
        state.withLock { updateInterest(&$0, &resumptions) }
        resumptions.run()
    }

    deinit {
        state.withLock { state in
            if !state.closed { Glibc.close(fd) }
        }
    }

    // MARK: Reading

    /// The next frame's payload; nil when the peer closed the stream cleanly between frames.
    /// Throws when the stream ended inside a frame, a frame was too large, or reading failed.
    /// One reader at a time.
    package func readFrame() async throws(ConnectionError) -> [UInt8]? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8]?, ConnectionError>, Never>) in
                var resumptions = Resumptions()
                state.withLock { state in
                    if let immediate = takeFrame(&state, &resumptions) {
                        continuation.resume(returning: immediate)
                    } else if Task.isCancelled {
                        continuation.resume(returning: .failure(.closed))
                    } else {
                        precondition(state.reader == nil, "SocketConnection.readFrame has one reader at a time")
                        state.reader = continuation
                    }
                }
                resumptions.run()
            }
        } onCancel: {
            let reader = state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: .failure(.closed))
        }
        return try result.get()
    }

    /// A frame, the end, or nil if the reader must wait.
    private func takeFrame(_ state: inout State, _ resumptions: inout Resumptions) -> Result<[UInt8]?, ConnectionError>? {
        if let frame = state.frames.popFirst() {
            if state.readPaused, state.frames.count <= limits.inboundFrameHighWater / 2 {
                state.readPaused = false
                updateInterest(&state, &resumptions)
            }
            return .success(frame)
        }
        switch state.readEnd {
        case .endOfStream?: return .success(nil)
        case let .failed(error)?: return .failure(error)
        case nil: return state.closed ? .failure(.closed) : nil
        }
    }

    // MARK: Writing

    /// Queues `bytes` (one or more whole frames) for sending. Returns once they are queued and
    /// the queue is below the high-water mark; throws if the connection can no longer write.
    package func write(_ bytes: [UInt8]) async throws(ConnectionError) {
        var resumptions = Resumptions()
        let mustWait: Result<Bool, ConnectionError> = state.withLock { state in
            if state.closed { return .failure(.closed) }
            if let failure = state.writeFailure { return .failure(failure) }
            state.outbound.append(contentsOf: bytes)
            flush(&state, &resumptions)
            if let failure = state.writeFailure { return .failure(failure) }
            updateInterest(&state, &resumptions)
            return .success(state.pendingOutbound > limits.outboundHighWater)
        }
        resumptions.run()
        guard try mustWait.get() else { return }
        let waited = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ConnectionError>, Never>) in
            let immediate: Result<Void, ConnectionError>? = state.withLock { state in
                if state.closed { return .failure(.closed) }
                if let failure = state.writeFailure { return .failure(failure) }
                if state.pendingOutbound <= limits.outboundLowWater { return .success(()) }
                state.spaceWaiters.append(continuation)
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
        try waited.get()
    }

    /// Waits until everything queued has been sent (or can never be), for at most `timeout`.
    package func drain(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = self.state.withLock { state in
                        if state.pendingOutbound == 0 || state.closed || state.writeFailure != nil { return true }
                        state.drainWaiters.append(continuation)
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask { await self.loop.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Release a drain waiter left behind by the timeout.
            let waiters = self.state.withLock { state in
                defer { state.drainWaiters = [] }
                return state.drainWaiters
            }
            for waiter in waiters { waiter.resume() }
            await group.waitForAll()
        }
    }

    /// Tells the peer nothing more will be written (a half close); reading goes on.
    package func shutdownWriting() {
        state.withLock { state in
            guard !state.closed else { return }
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        }
    }

    /// Closes the socket now. Pending reads end, pending writes fail. Idempotent.
    package func close() {
        var resumptions = Resumptions()
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            if let token = state.token {
                loop.deregister(fd, token: token)
                state.token = nil
            }
            Glibc.close(fd)
            if let reader = state.reader {
                state.reader = nil
                let result: Result<[UInt8]?, ConnectionError>
                switch state.readEnd {
                case .endOfStream?: result = .success(nil)
                case let .failed(error)?: result = .failure(error)
                case nil: result = .failure(.closed)
                }
                resumptions.add { reader.resume(returning: result) }
            }
            failWriters(&state, .closed, &resumptions)
        }
        resumptions.run()
    }

    /// The process at the other end, if the kernel knows it.
    package var peer: (pid: pid_t, uid: uid_t)? {
        UnixSocket.peerCredentials(fd)
    }

    // MARK: Event loop side

    package func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
        var resumptions = Resumptions()
        state.withLock { state in
            guard !state.closed else { return }
            let errorOrHangup = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            if events & EPOLLOUT.rawValue != 0 || (errorOrHangup && state.pendingOutbound > 0) {
                flush(&state, &resumptions)
            }
            if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 || errorOrHangup {
                readAvailable(&state, scratch: scratch, &resumptions)
            }
            updateInterest(&state, &resumptions)
        }
        resumptions.run()
    }

    private func readAvailable(_ state: inout State, scratch: UnsafeMutableRawBufferPointer, _ resumptions: inout Resumptions) {
        while state.readEnd == nil, !state.readPaused {
            let count = Glibc.read(fd, scratch.baseAddress, scratch.count)
            if count > 0 {
                state.decoder.append(UnsafeRawBufferPointer(rebasing: scratch[0 ..< count]))
                do {
                    while let frame = try state.decoder.nextFrame() {
                        state.frames.append(frame)
                    }
                } catch {
                    state.readEnd = .failed(.frame(error))
                }
                if state.frames.count >= limits.inboundFrameHighWater {
                    state.readPaused = true
                }
            } else if count == 0 {
                do {
                    try state.decoder.finish()
                    state.readEnd = .endOfStream
                } catch {
                    state.readEnd = .failed(.frame(error))
                }
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else if errno == ECONNRESET, !state.decoder.hasPartialFrame {
                state.readEnd = .endOfStream
            } else {
                state.readEnd = .failed(.system(SystemError("read")))
            }
        }
        if let reader = state.reader, let result = takeFrame(&state, &resumptions) {
            state.reader = nil
            resumptions.add { reader.resume(returning: result) }
        }
    }

    /// Writes as much of the queue as the socket takes now.
    private func flush(_ state: inout State, _ resumptions: inout Resumptions) {
        while state.pendingOutbound > 0, state.writeFailure == nil {
            let sent = state.outbound.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + state.outboundOffset, state.pendingOutbound, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                state.outboundOffset += sent
            } else if errno == EINTR {
                continue
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else {
                failWriters(&state, .system(SystemError("send")), &resumptions)
            }
        }
        if state.pendingOutbound == 0 {
            state.outbound.removeAll(keepingCapacity: state.outbound.capacity <= 1 << 20)
            state.outboundOffset = 0
        } else if state.outboundOffset > 1 << 16, state.outboundOffset > state.outbound.count / 2 {
            state.outbound.removeSubrange(0 ..< state.outboundOffset)
            state.outboundOffset = 0
        }
        if state.pendingOutbound <= limits.outboundLowWater, !state.spaceWaiters.isEmpty {
            let waiters = state.spaceWaiters
            state.spaceWaiters = []
            resumptions.add { for waiter in waiters { waiter.resume(returning: .success(())) } }
        }
        if state.pendingOutbound == 0, !state.drainWaiters.isEmpty {
            let waiters = state.drainWaiters
            state.drainWaiters = []
            resumptions.add { for waiter in waiters { waiter.resume() } }
        }
    }

    private func failWriters(_ state: inout State, _ error: ConnectionError, _ resumptions: inout Resumptions) {
        if state.writeFailure == nil { state.writeFailure = error }
        state.outbound = []
        state.outboundOffset = 0
        let spaceWaiters = state.spaceWaiters
        let drainWaiters = state.drainWaiters
        state.spaceWaiters = []
        state.drainWaiters = []
        resumptions.add {
            for waiter in spaceWaiters { waiter.resume(returning: .failure(error)) }
            for waiter in drainWaiters { waiter.resume() }
        }
    }

    /// Keeps the epoll registration in line with what the connection wants: readable while it
    /// reads, writable while it has bytes queued, and not registered at all when it wants
    /// neither (a hung-up socket would otherwise report itself forever).
    private func updateInterest(_ state: inout State, _ resumptions: inout Resumptions) {
        guard !state.closed else { return }
        var wanted: UInt32 = 0
        if state.readEnd == nil, !state.readPaused {
            wanted |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        }
        if state.pendingOutbound > 0, state.writeFailure == nil {
            wanted |= EPOLLOUT.rawValue
        }
        guard wanted != state.registeredEvents || (wanted != 0 && state.token == nil) else { return }
        if wanted == 0 {
            if let token = state.token {
                loop.deregister(fd, token: token)
                state.token = nil
            }
        } else if let token = state.token {
            loop.modify(fd, token: token, events: wanted)
        } else {
            do {
                state.token = try loop.register(fd, events: wanted, handler: self)
            } catch {
                state.readEnd = state.readEnd ?? .failed(.system(error))
                failWriters(&state, .system(error), &resumptions)
                if let reader = state.reader {
                    state.reader = nil
                    resumptions.add { reader.resume(returning: .failure(.system(error))) }
                }
                wanted = 0
            }
        }
        state.registeredEvents = wanted
    }
}

/// Continuations to resume once a lock is released.
struct Resumptions {
    private var actions: [() -> Void] = []

    mutating func add(_ action: @escaping () -> Void) {
        actions.append(action)
    }

    func run() {
        for action in actions { action() }
    }
}
