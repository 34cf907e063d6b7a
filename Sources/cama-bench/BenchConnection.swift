import ActorNode
import Glibc
@_spi(ByteWriting) import Wire

/// One benchmark connection, speaking the protocol with frames made once, as
/// `redis-benchmark` does, so that what is measured is the core, not the client's runtime:
/// each action's frame is its template with the `seq` spliced in. The hello and welcome are
/// exchanged blocking; then the socket is non-blocking, and ``BenchDriver`` runs every
/// connection from one thread, as `redis-benchmark` runs its clients from one event loop.
struct BenchConnection {
    enum Failure: Error, CustomStringConvertible {
        case connect(String)
        case closed
        case unexpected(String)

        var description: String {
            switch self {
            case let .connect(reason): reason
            case .closed: "the core closed the connection"
            case let .unexpected(frame): "unexpected answer: \(PeerText.forLog(frame))"
            }
        }
    }

    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var start = 0
    private var end = 0
    /// The action's frame before and after its seq.
    private let head: [UInt8]
    private let tail: [UInt8]
    private var frame: [UInt8] = []
    private var seq: UInt64 = 0
    /// The welcome's `shells`: the shells and watchers attached, counting this connection if
    /// it is a watcher.
    private(set) var shells = 0

    /// Connects, says hello as `client` in `role`, and reads the welcome.
    /// - Parameters:
    ///   - path: the core's socket.
    ///   - client: the client id.
    ///   - role: script (acks only) or watcher (renditions only).
    ///   - action: the action each ``send()`` sends.
    init(path: String, client: String, role: ClientRole = .script, action: JSONValue) throws(Failure) {
        var attempts = 0
        var connected: Int32 = -1
        while connected < 0 {
            switch try? UnixSocket.connect(to: path) {
            case let .connected(fd)?: connected = fd
            case .busy?:
                attempts += 1
                guard attempts < 5000 else { throw .connect("\(path): the core's backlog stays full") }
                usleep(1000)
            case let .failed(error)?: throw .connect(error.description)
            case nil: throw .connect("\(path): the path is too long")
            }
        }
        fd = connected
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        let placeholder: UInt64 = 987_654_321_987_654_321
        guard let template = try? WireJSON.encode(ClientMessage<JSONValue>.action(ActionRequest(client: client, seq: placeholder, action: action))),
              let at = Self.find(Array(String(placeholder).utf8), in: template)
        else { throw .connect("the action cannot be encoded") }
        head = Array(template[..<at])
        tail = Array(template[(at + String(placeholder).utf8.count)...])
        // A script asks for no state in its welcome, as `shell-client send` does: at 100,000
        // items each of 16 clients was sent 4 MB it never read, and the core encoded them.
        let wantsState = role.receivesRenditions
        guard let hello = try? WireJSON.encode(ClientMessage<JSONValue>.hello(Hello(role: role, client: client, name: "cama-bench", snapshot: wantsState))) else {
            throw .connect("the hello cannot be encoded")
        }
        var helloFrame: [UInt8] = []
        let start = Frame.beginFrame(in: &helloFrame)
        helloFrame += hello
        Frame.endFrame(in: &helloFrame, startingAt: start)
        try write(helloFrame)
        guard let welcome = try readFrame(blocking: true), welcome.starts(with: Array(#"{"welcome""#.utf8)) else {
            throw .unexpected("no welcome")
        }
        shells = Self.shells(in: welcome)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// Sends `count` actions with the next seqs, in one write.
    mutating func send(_ count: Int = 1) throws(Failure) {
        frame.removeAll(keepingCapacity: true)
        for _ in 0 ..< count {
            seq += 1
            // Written through a cursor, as the core writes its acks: the seq's digits in place,
            // no string made of it.
            frame.appendWritten(atMost: Frame.headerLength + head.count + 20 + tail.count) { [head, tail, seq] cursor in
                cursor.writeFrame { payload in
                    payload.write(head)
                    payload.writeDecimal(seq)
                    payload.write(tail)
                }
            }
        }
        try write(frame)
    }

    /// Reads and discards whatever the socket has (a watcher's renditions); returns the bytes
    /// read. Throws when the core closed the connection.
    mutating func drain() throws(Failure) -> Int {
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count > 0 {
                total += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return total
            } else {
                throw .closed
            }
        }
    }

    /// Reads what the socket has, in one read as `redis-benchmark` does (the epoll set is
    /// level-triggered: what is left makes the socket ready again); returns how many acks came
    /// (throws on anything else).
    mutating func receiveAcks() throws(Failure) -> Int {
        var acks = 0
        var mayRead = true
        let ack: StaticString = #"{"ack""#
        while let answer = try nextPayload(blocking: false, mayRead: &mayRead) {
            // Looked at where it is in the buffer: no array made of it.
            let isAck = buffer.withUnsafeBufferPointer { bytes in
                answer.count >= ack.utf8CodeUnitCount
                    && (0 ..< ack.utf8CodeUnitCount).allSatisfy { bytes[answer.lowerBound + $0] == ack.utf8Start[$0] }
            }
            guard isAck else { throw .unexpected(String(decoding: buffer[answer].prefix(200), as: UTF8.self)) }
            acks += 1
        }
        return acks
    }

    /// The next frame's payload; nil when none is whole and the socket has no more for now.
    mutating func readFrame(blocking: Bool) throws(Failure) -> [UInt8]? {
        var mayRead = true
        return try nextPayload(blocking: blocking, mayRead: &mayRead).map { Array(buffer[$0]) }
    }

    /// Where the next frame's payload is in the buffer (until the next call), reading only
    /// while `mayRead`: a read that leaves room in the buffer took everything the socket had,
    /// so it clears `mayRead` (unless `blocking`), and the caller does not ask the socket
    /// again only to hear `EAGAIN`.
    mutating func nextPayload(blocking: Bool, mayRead: inout Bool) throws(Failure) -> Range<Int>? {
        while true {
            if end - start >= 4 {
                let length = buffer[start ..< start + 4].reduce(0) { $0 << 8 | Int($1) }
                if end - start >= 4 + length {
                    let payload = start + 4 ..< start + 4 + length
                    start += 4 + length
                    // Emptied: the next read goes to the front (after the payload is used).
                    if start == end { start = 0; end = 0 }
                    return payload
                }
                if 4 + length > buffer.count - start {
                    // Make room: move what is buffered to the front, grow if needed.
                    buffer = Array(buffer[start ..< end]) + [UInt8](repeating: 0, count: max(buffer.count, 4 + length))
                    end -= start
                    start = 0
                }
            } else if start > 0, buffer.count - start < 4 {
                buffer = Array(buffer[start ..< end]) + [UInt8](repeating: 0, count: buffer.count)
                end -= start
                start = 0
            }
            guard mayRead || blocking else { return nil }
            let room = buffer.count - end
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + end, $0.count - end) }
            if count > 0 {
                end += count
                if count < room { mayRead = false }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN, !blocking {
                return nil
            } else {
                throw .closed
            }
        }
    }

    func close() {
        _ = Glibc.close(fd)
    }

    private func write(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN {
                var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
            } else {
                throw .closed
            }
        }
    }

    /// The `shells` of a welcome's payload: the number after the first `"shells":`, which
    /// comes before the snapshot (the core writes keys in order, and a quote inside a string
    /// is escaped, so no text of the state can match first).
    private static func shells(in welcome: [UInt8]) -> Int {
        guard let at = find(Array(#""shells":"#.utf8), in: welcome) else { return 0 }
        var value = 0
        for byte in welcome[(at + 9)...] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for index in 0 ... haystack.count - needle.count where haystack[index ..< index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
