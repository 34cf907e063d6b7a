import ActorNode
import Glibc
import Wire

/// A client's socket driven by hand, for the protocol model: non-blocking, read and written
/// only when the test says so. So a test can stop reading it for a while (a slow client), queue
/// many frames to go out in one write, half-close it once what it queued is out, or drop it at
/// any moment. No event loop and no thread of its own: one task drives it, and it is not
/// Sendable.
final class ModelConnection {
    /// How the core's side of the stream ended, once it has.
    enum End: Equatable, CustomStringConvertible {
        /// The core closed between frames.
        case closed
        /// The core closed inside a frame (only a killed core may), with this many bytes of it.
        case closedInsideFrame(Int)
        /// The connection was reset (errno).
        case failed(Int32)

        var description: String {
            switch self {
            case .closed: return "closed"
            case let .closedInsideFrame(bytes): return "closed inside a frame (\(bytes) bytes of it received)"
            case let .failed(code): return "failed (errno \(code))"
            }
        }
    }

    let fd: Int32
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var decoder = FrameDecoder()
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    /// Set once the core's side has ended; nothing more will be read.
    private(set) var end: End?
    /// The errno of a write that failed (the core is gone or closed on us).
    private(set) var writeFailure: Int32?
    private(set) var isClosed = false
    /// Whether the writing side was shut down (a half close).
    private(set) var isHalfClosed = false
    /// Shut the writing side down as soon as everything queued is written.
    private var halfCloseWhenFlushed = false
    private(set) var bytesReceived = 0
    private(set) var bytesSent = 0

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        if !isClosed { Glibc.close(fd) }
    }

    /// Connects to the core at `path` without blocking; nil if nobody accepts right now
    /// (no core, or its backlog is full).
    static func open(_ path: String) -> ModelConnection? {
        guard case let .connected(fd)? = try? UnixSocket.connect(to: path) else { return nil }
        return ModelConnection(fd: fd)
    }

    /// Bytes queued and not yet taken by the socket.
    var unsent: Int { outbound.count - outboundOffset }

    /// Queues bytes (whole frames) to be written by the next ``flush()``.
    func queue(_ bytes: [UInt8]) {
        precondition(!halfCloseWhenFlushed && !isHalfClosed, "nothing is written after a half close")
        outbound += bytes
    }

    /// Shuts the writing side down once everything queued is written.
    func halfCloseWhenDone() {
        halfCloseWhenFlushed = true
    }

    /// Writes what the socket takes now; whether anything happened.
    func flush() -> Bool {
        guard !isClosed, writeFailure == nil else { return false }
        var progress = false
        while outboundOffset < outbound.count {
            let offset = outboundOffset
            let written = outbound.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                outboundOffset += written
                bytesSent += written
                progress = true
                continue
            }
            let code = errno
            if written < 0, code == EINTR { continue }
            if written < 0, code == EAGAIN || code == EWOULDBLOCK { break }
            writeFailure = code
            break
        }
        if outboundOffset == outbound.count, outboundOffset > 0 {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        }
        if halfCloseWhenFlushed, !isHalfClosed, outbound.isEmpty, writeFailure == nil {
            _ = shutdown(fd, Int32(SHUT_WR))
            isHalfClosed = true
            progress = true
        }
        return progress
    }

    /// Reads what has arrived (at most about `limit` bytes) and returns the whole frames in it.
    /// Sets ``end`` when the stream ended. Throws if the core sent something that is not a frame.
    func receive(limit: Int = 256 << 10) throws(FrameError) -> [[UInt8]] {
        guard !isClosed, end == nil else { return [] }
        var total = 0
        var ended: End?
        readLoop: while total < limit {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                scratch.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0 ..< count])) }
                total += count
                bytesReceived += count
                continue
            }
            let code = errno
            switch count {
            case 0:
                ended = .closed
                break readLoop
            default:
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break readLoop }
                ended = .failed(code)
                break readLoop
            }
        }
        var frames: [[UInt8]] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        if ended == .closed, decoder.hasPartialFrame { ended = .closedInsideFrame(decoder.bufferedByteCount) }
        end = ended
        return frames
    }

    /// Closes the socket now, whatever is queued or unread.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }
}
