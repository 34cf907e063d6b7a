import CSystemShims
import Glibc
import Synchronization

/// Something that owns a file descriptor watched by the ``EventLoop``. Called on the loop's
/// thread only, one event at a time.
package protocol EventHandler: AnyObject, Sendable {
    /// `events` is the epoll event mask that fired; `scratch` is the loop thread's read buffer,
    /// valid only during the call.
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer)
}

/// One epoll instance and one dedicated thread that waits on it, so that socket I/O never
/// blocks Swift's cooperative pool. Handlers are found through a token stored in the event, so an
/// event for a closed and reused descriptor never reaches the wrong handler.
///
/// The loop also keeps timers (``schedule(after:_:)``), which it runs on its thread when they
/// are due; a cancelled timer is freed at once.
///
/// It is a `SerialExecutor` too, as swift-nio's event loops are: an actor whose executor is the
/// loop runs on the loop's thread, so the code that reads a socket can call into it without a
/// hop, and tasks elsewhere reach it by `await`, as jobs the loop runs between its I/O events.
/// One turn of the loop: wait for events (or run at once when jobs wait), handle every ready
/// descriptor, run the due timers and the queued jobs, then the end-of-turn hooks
/// (``onEndOfTurn(_:)``), where a core writes its journal once and then its answers.
package final class EventLoop: SerialExecutor, Sendable {
    /// The process's loop, started on first use.
    package static let shared = EventLoop()

    private let epollFD: Int32
    private let wakeFD: Int32
    private let handlers = Mutex(HandlerTable())
    private let nextToken = Atomic<UInt64>(1)
    private let timers = Mutex(TimerHeap<@Sendable () -> Void>())
    /// Jobs of actors that run on this loop and closures given to ``execute(_:)``, waiting for
    /// their turn, in the order they came.
    private let work = Mutex<[Work]>([])
    /// What runs at the end of every turn, in the order registered, by id.
    private let turnHooks = Mutex<[(id: UInt64, hook: @Sendable () -> Void)]>([])

    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }
    /// The loop's thread (0 until it runs).
    private let thread = Atomic<UInt>(0)

    private static let wakeToken: UInt64 = 0

    /// A loop of its own, with its own thread (the process's is ``shared``); for tests, or a
    /// server that wants its connections on a thread apart. It runs for the life of the process.
    /// It traps when the system refuses it the two descriptors it needs; ``make()`` says so
    /// instead.
    package convenience init() {
        let descriptors: (epoll: Int32, wake: Int32)
        do {
            descriptors = try Self.openDescriptors()
        } catch {
            preconditionFailure("\(error)")
        }
        self.init(descriptors: descriptors)
    }

    /// A loop of its own, as ``init()`` makes, or the reason the system refused it (out of
    /// descriptors, say): for a server, which says so and exits rather than crash.
    package static func make() throws(SystemError) -> EventLoop {
        EventLoop(descriptors: try openDescriptors())
    }

    private init(descriptors: (epoll: Int32, wake: Int32)) {
        epollFD = descriptors.epoll
        wakeFD = descriptors.wake
        SystemThread.detach(name: "cama-io") { [self] in run() }
    }

    /// The loop's epoll instance and the eventfd that wakes it, watched by it.
    private static func openDescriptors() throws(SystemError) -> (epoll: Int32, wake: Int32) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SystemError("epoll_create1") }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let error = SystemError("eventfd")
            close(epollFD)
            throw error
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = wakeToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let error = SystemError("epoll_ctl")
            close(wakeFD)
            close(epollFD)
            throw error
        }
        return (epollFD, wakeFD)
    }

    /// Starts watching `fd` for `events` on behalf of `handler`; returns the token to modify or
    /// remove the registration with.
    package func register(_ fd: Int32, events: UInt32, handler: any EventHandler) throws(SystemError) -> UInt64 {
        let token = handlers.withLock { $0.add(handler) }
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let error = SystemError("epoll_ctl(ADD)")
            handlers.withLock { $0.remove(token) }
            throw error
        }
        return token
    }

    /// Changes the events watched for a registered descriptor.
    package func modify(_ fd: Int32, token: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd`. Call before closing it.
    package func deregister(_ fd: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        handlers.withLock { $0.remove(token) }
    }

    /// A timer set with ``schedule(after:_:)``, to cancel it with.
    package struct Timer: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    /// Runs `body` on the loop's thread once `delay` has passed, unless cancelled before.
    /// - Parameters:
    ///   - delay: how long from now.
    ///   - body: what to run; keep it short, it runs on the loop's thread.
    /// - Returns: the timer, for ``cancel(_:)``.
    @discardableResult
    package func schedule(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> Timer {
        let id = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = MonotonicClock.deadline(after: delay)
        let isEarliest = timers.withLock { heap in
            heap.insert(id: id, deadline: deadline, payload: body)
            return heap.nextDeadline == deadline
        }
        // The loop may be waiting for a later deadline, or for none: wake it to wait less.
        if isEarliest { wake() }
        return Timer(id: id)
    }

    /// Cancels a timer: its closure is released now. Returns whether it had not run yet.
    /// - Parameter timer: what ``schedule(after:_:)`` returned.
    @discardableResult
    package func cancel(_ timer: Timer) -> Bool {
        timers.withLock { $0.remove(id: timer.id) } != nil
    }

    /// Timers waiting to run.
    package var scheduledCount: Int { timers.withLock { $0.count } }

    /// Waits for `duration` without blocking a thread; a cancelled task stops waiting at once and
    /// its timer is freed at once (unlike `Task.sleep`, whose timer lives to its deadline).
    /// - Parameter duration: how long.
    package func sleep(for duration: Duration) async {
        let waiter = SleepWaiter()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // The continuation is in place before the timer exists: a timer that is due at
                // once fires on the loop's thread, maybe before `schedule` even returns.
                guard waiter.install(continuation) else {
                    continuation.resume()
                    return
                }
                let timer = schedule(after: duration) { waiter.resume() }
                if !waiter.keep(timer) { cancel(timer) }
            }
        } onCancel: {
            if let timer = waiter.cancel() { self.cancel(timer) }
        }
    }

    // MARK: Executor

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let first = work.withLock { work in
            work.append(.job(job))
            return work.count == 1
        }
        // The loop's own jobs are run within its turn; a waiting loop is woken once.
        if first, !isInLoopThread { wake() }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    package func checkIsolated() {
        precondition(isInLoopThread, "expected to run on the event loop's thread")
    }

    /// Whether the caller runs on this loop's thread.
    package var isInLoopThread: Bool {
        let loop = thread.load(ordering: .acquiring)
        return loop != 0 && pthread_equal(pthread_self(), pthread_t(loop)) != 0
    }

    /// Runs `hook` at the end of every turn of the loop, on its thread, after the turn's I/O
    /// events, timers and jobs.
    /// - Parameter hook: what to run; keep it short when there is nothing to do.
    /// - Returns: an id, to remove the hook with ``removeEndOfTurnHook(_:)``.
    @discardableResult
    package func onEndOfTurn(_ hook: @escaping @Sendable () -> Void) -> UInt64 {
        let id = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        turnHooks.withLock { $0.append((id, hook)) }
        wake()
        return id
    }

    /// Stops running a hook at the end of each turn.
    /// - Parameter id: what ``onEndOfTurn(_:)`` returned.
    package func removeEndOfTurnHook(_ id: UInt64) {
        turnHooks.withLock { $0.removeAll { $0.id == id } }
    }

    /// Runs `body` on the loop's thread, in its next turn (which it starts, if the loop waits).
    /// - Parameter body: what to run; keep it short.
    package func execute(_ body: @escaping @Sendable () -> Void) {
        let first = work.withLock { work in
            work.append(.closure(body))
            return work.count == 1
        }
        if first, !isInLoopThread { wake() }
    }

    /// Runs the queued jobs, those they queue included, up to a bound so that a job that keeps
    /// queueing more cannot starve the loop's I/O.
    private func runJobs() {
        var ran = 0
        while ran < 4096 {
            // Taken whole, leaving an empty queue: no copy of the queue, and no new storage for
            // it when there was nothing (twice a turn, most turns).
            let batch = work.withLock { work -> [Work] in
                guard !work.isEmpty else { return [] }
                var taken: [Work] = []
                swap(&taken, &work)
                return taken
            }
            guard !batch.isEmpty else { return }
            for item in batch {
                switch item {
                case let .job(job): job.runSynchronously(on: asUnownedSerialExecutor())
                case let .closure(body): body()
                }
            }
            ran += batch.count
        }
    }

    private var hasJobs: Bool { work.withLock { !$0.isEmpty } }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    /// Milliseconds until the earliest timer, rounded up (-1: none, wait for events only).
    private func waitTimeout() -> Int32 {
        MonotonicClock.milliseconds(until: timers.withLock { $0.nextDeadline })
    }

    /// Handles the descriptors that are ready now, without waiting and without ending the turn:
    /// for a handler of the end of the turn that is about to wait for a disk and would rather
    /// take in, first, what arrived while it worked (the core's group commit under
    /// `--fsync always`). Call it on the loop's thread only.
    /// - Returns: how many descriptors were ready.
    @discardableResult
    package func handleReadyNow() -> Int {
        precondition(isInLoopThread, "handleReadyNow() is for the loop's own thread")
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        let count = epoll_wait(epollFD, events, Int32(capacity), 0)
        guard count > 0 else { return 0 }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        return dispatch(events, count: Int(count), scratch: scratch)
    }

    /// Hands each event to its handler (the loop's own wake-up is only taken).
    /// - Returns: how many handlers were called: the wake-up, which another thread may signal
    ///   at any moment (a job queued), is not a descriptor that was ready.
    @discardableResult
    private func dispatch(_ events: UnsafeMutablePointer<epoll_event>, count: Int, scratch: UnsafeMutableRawBufferPointer) -> Int {
        var handled = 0
        for index in 0 ..< count {
            let event = events[index]
            let token = event.data.u64
            if token == Self.wakeToken {
                var value: UInt64 = 0
                _ = read(wakeFD, &value, MemoryLayout<UInt64>.size)
                continue
            }
            guard let handler = handlers.withLock({ $0.handler(for: token) }) else { continue }
            handler.handleEvents(event.events, scratch: scratch)
            handled += 1
        }
        return handled
    }

    private func runDueTimers() {
        let due = timers.withLock { $0.popExpired(now: MonotonicClock.now) }
        for entry in due { entry.payload() }
    }

    private func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        while true {
            let count = epoll_wait(epollFD, events, Int32(capacity), hasJobs ? 0 : waitTimeout())
            runDueTimers()
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(SystemError("epoll_wait"))")
            }
            // Jobs queued before these events were seen came first: one queued before a peer
            // even sent its bytes (a notice posted before a client's action) runs before their
            // handler. Jobs the handlers queue run after them, in the same turn.
            runJobs()
            defer {
                runJobs()
                for entry in turnHooks.withLock({ $0 }) { entry.hook() }
            }
            dispatch(events, count: Int(count), scratch: scratch)
        }
    }
}

/// The meeting point of a sleeping task, its timer and its cancellation: whichever comes first
/// resumes the task, exactly once, and a timer that is no longer needed is cancelled.
private final class SleepWaiter: Sendable {
    private enum Phase {
        /// Not sleeping yet.
        case ready
        /// Sleeping; the timer, once it is set.
        case sleeping(CheckedContinuation<Void, Never>, EventLoop.Timer?)
        /// Resumed, or cancelled before it slept.
        case done
    }

    private let phase = Mutex(Phase.ready)

    /// Puts the task to sleep; false if it was cancelled before (resume it yourself).
    func install(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        phase.withLock { phase in
            guard case .ready = phase else { return false }
            phase = .sleeping(continuation, nil)
            return true
        }
    }

    /// Keeps the timer, to cancel it if the task is cancelled; false if the sleep is over
    /// already (fired or cancelled): then the timer is not needed.
    func keep(_ timer: EventLoop.Timer) -> Bool {
        phase.withLock { phase in
            guard case let .sleeping(continuation, nil) = phase else { return false }
            phase = .sleeping(continuation, timer)
            return true
        }
    }

    /// The timer fired.
    func resume() {
        let continuation = phase.withLock { phase -> CheckedContinuation<Void, Never>? in
            guard case let .sleeping(continuation, _) = phase else { return nil }
            phase = .done
            return continuation
        }
        continuation?.resume()
    }

    /// The task was cancelled: resumes it, and returns the timer to cancel, if it was set.
    func cancel() -> EventLoop.Timer? {
        let (continuation, timer) = phase.withLock { phase -> (CheckedContinuation<Void, Never>?, EventLoop.Timer?) in
            switch phase {
            case .ready:
                phase = .done
                return (nil, nil)
            case let .sleeping(continuation, timer):
                phase = .done
                return (continuation, timer)
            case .done:
                return (nil, nil)
            }
        }
        continuation?.resume()
        return timer
    }
}
