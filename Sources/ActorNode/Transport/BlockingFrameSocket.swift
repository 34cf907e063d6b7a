import Glibc
import Wire

/// A connected socket used by one thread that waits for it: frames out, frames in, each wait
/// bounded by a deadline (`poll`). For a command that has nothing else to do while it waits
/// (`shell-client send`, `state`), it replaces the event loop's thread and the tasks around a
/// ``SocketConnection`` with plain system calls on the calling thread.
///
/// Never use it from Swift's cooperative pool: its waits block the thread.
public final class BlockingFrameSocket {
    /// Why a read or a write did not complete.
    public enum Failure: Error, Equatable {
        /// The deadline passed first.
        case timedOut
        /// The stream broke the framing, or the system call failed.
        case connection(ConnectionError)
    }

    /// The socket; closed by ``close()`` or when this object goes. It is left in blocking mode:
    /// each call says whether it may wait (`MSG_DONTWAIT`), so that a read without a deadline
    /// waits in the read itself, one system call per wake.
    public let fd: Int32
    private var decoder: FrameDecoder
    /// Where reads land; it grows (up to 1 MiB) while reads fill it, as for a large state.
    private var scratch: UnsafeMutableRawBufferPointer
    private var isClosed = false
    /// The last read took everything the socket held (it filled less than the buffer).
    private var drained = false

    /// - Parameters:
    ///   - fd: a connected stream socket; it is put in blocking mode, and this object owns it.
    ///   - maximumPayloadLength: the largest frame accepted from the peer.
    public init(fd: Int32, maximumPayloadLength: Int = Frame.defaultMaximumPayloadLength) {
        self.fd = fd
        decoder = FrameDecoder(maximumPayloadLength: maximumPayloadLength)
        scratch = .allocate(byteCount: 64 << 10, alignment: 1)
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0, flags & O_NONBLOCK != 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
        scratch.deallocate()
    }

    /// Writes `bytes` (whole frames) before `deadline`.
    /// - Parameters:
    ///   - bytes: what to send.
    ///   - deadline: when to give up.
    public func write(_ bytes: [UInt8], before deadline: ContinuousClock.Instant) throws(Failure) {
        guard !isClosed else { throw .connection(.closed) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent >= 0 {
                offset += sent
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                try wait(for: Int16(POLLOUT), before: deadline)
            default:
                throw .connection(.system(SystemError("write")))
            }
        }
    }

    /// The next frame's payload, read before `deadline`; nil when the peer closed the stream
    /// cleanly between frames (or reset it with nothing of a frame pending).
    /// - Parameters:
    ///   - deadline: when to give up; nil to wait as long as it takes.
    ///   - unlessDrained: when every frame of what was read has been taken, nothing of one is
    ///     pending, and the last read took everything the socket held, time out at once without
    ///     asking the socket: for a reader that acts once it has taken everything the last read
    ///     brought (a watcher prints the newest state).
    public func readFrame(before deadline: ContinuousClock.Instant?, unlessDrained: Bool = false) throws(Failure) -> [UInt8]? {
        guard !isClosed else { throw .connection(.closed) }
        while true {
            do {
                if let frame = try decoder.nextFrame() { return frame }
            } catch {
                throw .connection(.frame(error))
            }
            if unlessDrained, drained, !decoder.hasPartialFrame { throw .timedOut }
            let count = recv(fd, scratch.baseAddress, scratch.count, deadline == nil ? 0 : Int32(MSG_DONTWAIT))
            drained = count >= 0 && count < scratch.count
            if count > 0 {
                decoder.append(UnsafeRawBufferPointer(rebasing: scratch[..<count]))
                if count == scratch.count, scratch.count < 1 << 20 {
                    scratch.deallocate()
                    scratch = .allocate(byteCount: count * 2, alignment: 1)
                }
                continue
            }
            if count == 0 {
                do {
                    try decoder.finish()
                } catch {
                    throw .connection(.frame(error))
                }
                return nil
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                try wait(for: Int16(POLLIN), before: deadline ?? .now + .seconds(86_400))
            case ECONNRESET where !decoder.hasPartialFrame:
                return nil
            default:
                throw .connection(.system(SystemError("read")))
            }
        }
    }

    /// Stops writing (the peer reads end of file) and closes the socket.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = shutdown(fd, Int32(SHUT_WR))
        Glibc.close(fd)
    }

    /// Waits until the socket is ready for `events` or has failed; throws once `deadline` passes.
    private func wait(for events: Int16, before deadline: ContinuousClock.Instant) throws(Failure) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut }
            let (seconds, attoseconds) = left.components
            // Rounded up, so that a wait never ends just before its deadline.
            let milliseconds = min(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000, Int64(Int32.max))
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(milliseconds))
            if ready > 0 || (ready < 0 && errno != EINTR) { return }
        }
    }
}
