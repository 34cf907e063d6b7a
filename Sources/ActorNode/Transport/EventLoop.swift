import CSystemShims
import Glibc
import Synchronization

/// Something that owns a file descriptor watched by the ``EventLoop``. Called on the loop's
/// thread only, one event at a time.
public protocol EventHandler: AnyObject, Sendable {
    /// `events` is the epoll event mask that fired; `scratch` is the loop thread's read buffer,
    /// valid only during the call.
    func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer)
}

/// One epoll instance and one dedicated thread that waits on it, so that socket I/O never
/// blocks Swift's cooperative pool. Handlers are found through a token stored in the event, so an
/// event for a closed and reused descriptor never reaches the wrong handler.
public final class EventLoop: Sendable {
    /// The process's loop, started on first use.
    public static let shared = EventLoop()

    private let epollFD: Int32
    private let wakeFD: Int32
    private let handlers = Mutex<[UInt64: any EventHandler]>([:])
    private let nextToken = Atomic<UInt64>(1)

    private static let wakeToken: UInt64 = 0

    private init() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epollFD >= 0, "epoll_create1: \(SystemError("epoll_create1"))")
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(wakeFD >= 0, "eventfd: \(SystemError("eventfd"))")
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        precondition(epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0, "epoll_ctl: \(SystemError("epoll_ctl"))")
        SystemThread.detach(name: "cama-io") { [self] in run() }
    }

    /// Starts watching `fd` for `events` on behalf of `handler`; returns the token to modify or
    /// remove the registration with.
    public func register(_ fd: Int32, events: UInt32, handler: any EventHandler) throws(SystemError) -> UInt64 {
        let token = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        handlers.withLock { $0[token] = handler }
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let error = SystemError("epoll_ctl(ADD)")
            handlers.withLock { _ = $0.removeValue(forKey: token) }
            throw error
        }
        return token
    }

    /// Changes the events watched for a registered descriptor.
    public func modify(_ fd: Int32, token: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd`. Call before closing it.
    public func deregister(_ fd: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        handlers.withLock { _ = $0.removeValue(forKey: token) }
    }

    private func run() {
        let capacity = 64
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        while true {
            let count = epoll_wait(epollFD, events, Int32(capacity), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait: \(SystemError("epoll_wait"))")
            }
            for index in 0 ..< Int(count) {
                let event = events[index]
                let token = event.data.u64
                if token == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = read(wakeFD, &value, MemoryLayout<UInt64>.size)
                    continue
                }
                guard let handler = handlers.withLock({ $0[token] }) else { continue }
                handler.handleEvents(event.events, scratch: scratch)
            }
        }
    }
}
