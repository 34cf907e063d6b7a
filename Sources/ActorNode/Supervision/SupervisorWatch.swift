import CSystemShims
import Glibc
import Synchronization

/// How a supervised core notices its supervisor is gone: the supervisor passes the read end of
/// a pipe whose write end only it holds; when it dies, for whatever reason (SIGKILL included),
/// the kernel closes the write end and the read end reports end-of-file. Event-driven, on the
/// ``EventLoop``, and independent of which of the supervisor's threads started us (unlike
/// PR_SET_PDEATHSIG).
package final class SupervisorWatch: EventHandler, Sendable {
    /// The variable naming the descriptor.
    package static let variable = "CAMA_SUPERVISOR_FD"

    private let fd: Int32
    private let onGone: @Sendable () -> Void
    private let state = Mutex<(token: UInt64?, fired: Bool)>((nil, false))
    private let loop: EventLoop

    /// Starts watching the descriptor named in the environment, if any; `onGone` runs once, on
    /// the event loop's thread, when the supervisor is gone.
    /// - Parameters:
    ///   - environment: the process's environment, where the supervisor names the descriptor.
    ///   - loop: the loop to watch it on (``EventLoop/shared`` when nil, made only if there is
    ///     something to watch: a loop takes descriptors of its own).
    ///   - onGone: what to do once the supervisor is gone.
    package static func start(environment: [String: String], loop: EventLoop? = nil, onGone: @escaping @Sendable () -> Void) -> SupervisorWatch? {
        guard let fd = environment[variable].flatMap(Int32.init), fd >= 0, fcntl(fd, F_GETFD) >= 0 else { return nil }
        let loop = loop ?? .shared
        unsetenv(variable)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let watch = SupervisorWatch(fd: fd, loop: loop, onGone: onGone)
        guard let token = try? loop.register(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, handler: watch) else { return nil }
        watch.state.withLock { $0.token = token }
        return watch
    }

    private init(fd: Int32, loop: EventLoop, onGone: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.loop = loop
        self.onGone = onGone
    }

    package func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {
        let count = read(fd, scratch.baseAddress, scratch.count)
        guard count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) else { return }
        let fire = state.withLock { state -> Bool in
            guard !state.fired else { return false }
            state.fired = true
            if let token = state.token { loop.deregister(fd, token: token) }
            return true
        }
        if fire {
            close(fd)
            onGone()
        }
    }
}
