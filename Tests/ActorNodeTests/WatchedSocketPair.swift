import CSystemShims
import Glibc
@testable import ActorNode

/// A connected pair of sockets whose reading end a handler watches, on an event loop of its
/// own: what the event loop's tests write to and watch. ``close()`` stops watching and closes
/// both ends.
struct WatchedSocketPair<Handler: EventHandler> {
    let loop = EventLoop()
    /// The end the handler reads (non-blocking).
    let reading: Int32
    /// The end the test writes to.
    let writing: Int32
    let handler: Handler
    private let token: UInt64

    /// - Parameter makeHandler: the handler, given the end it reads.
    init(_ makeHandler: (Int32) -> Handler) throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw SystemError("socketpair")
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        reading = fds[0]
        writing = fds[1]
        handler = makeHandler(fds[0])
        do {
            token = try loop.register(fds[0], events: EPOLLIN.rawValue, handler: handler)
        } catch {
            Glibc.close(fds[0])
            Glibc.close(fds[1])
            throw error
        }
    }

    func close() {
        loop.deregister(reading, token: token)
        Glibc.close(reading)
        Glibc.close(writing)
    }
}
