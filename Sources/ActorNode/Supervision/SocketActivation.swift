import Glibc

/// systemd's socket-activation convention, as a core receives it from systemd, from
/// `systemd-socket-activate`, or from cama-launch: `LISTEN_FDS=n` and `LISTEN_PID=<our pid>`,
/// with the listening sockets at descriptors 3, 4, ... (`SD_LISTEN_FDS_START`).
package enum SocketActivation {
    package static let firstDescriptor: Int32 = 3

    /// The listening socket passed to this process, if any. Clears the variables so that no
    /// child of ours mistakes them for its own, and makes the descriptor close-on-exec and
    /// non-blocking.
    package static func inheritedListener(environment: [String: String]) -> Int32? {
        guard let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1,
              let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid() else { return nil }
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDNAMES")
        let fd = firstDescriptor
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// The filesystem path a listening Unix socket is bound to ("" when it has none).
    package static func boundPath(_ fd: Int32) -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return "" }
        return withUnsafeBytes(of: address.sun_path) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// Whether `fd` is a listening stream socket.
    package static func isListeningSocket(_ fd: Int32) -> Bool {
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0 && accepting == 1
    }
}

/// systemd's readiness convention: a datagram `READY=1` to the socket named by `NOTIFY_SOCKET`
/// (a path, or an abstract name written with a leading '@').
package enum ReadinessNotification {
    /// Tells the supervisor (systemd or cama-launch) that the service is ready; does nothing
    /// when no one asked. Returns whether a notification was sent.
    @discardableResult
    package static func send(_ message: String, environment: [String: String]) -> Bool {
        guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(target.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let payload = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, payload, payload.count, Int32(MSG_NOSIGNAL), $0, length)
            }
        }
        return sent == payload.count
    }
}
