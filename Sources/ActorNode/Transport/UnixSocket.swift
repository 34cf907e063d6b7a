import CSystemShims
import Glibc

/// Creating, binding and connecting Unix domain stream sockets, with every path checked
/// against the size of `sun_path` instead of being silently truncated.
package enum UnixSocket {
    /// The longest path that fits in `sun_path` with its terminating NUL.
    package static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Why a socket path cannot be used.
    package struct PathTooLong: Error, CustomStringConvertible {
        package var path: String

        package var description: String {
            "the socket path \(path) is \(path.utf8.count) bytes, longer than the \(UnixSocket.maximumPathLength) that fit in a Unix socket address; choose a shorter path"
        }
    }

    /// Builds the address for `path`.
    package static func address(_ path: String) throws(PathTooLong) -> sockaddr_un {
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumPathLength, !bytes.isEmpty else { throw PathTooLong(path: path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// A new non-blocking, close-on-exec stream socket.
    package static func makeSocket() throws(SystemError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        return fd
    }

    /// Binds a listening socket at `path` (which must not exist) with mode 0600.
    package static func listen(at path: String, backlog: Int32 = 128) throws -> Int32 {
        var address = try address(path)
        let fd = try makeSocket()
        // The socket file is created by bind with the umask applied; narrow the umask so that the
        // file is never reachable by others, not even for a moment.
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            close(fd)
            throw SystemError("bind \(path)", code: bindError)
        }
        _ = chmod(path, 0o600)
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SystemError("listen \(path)")
            close(fd)
            throw error
        }
        return fd
    }

    /// The result of one non-blocking connection attempt.
    package enum ConnectAttempt {
        case connected(Int32)
        /// The listener's backlog is full: try again shortly.
        case busy
        case failed(SystemError)
    }

    /// Tries once to connect to `path` without blocking.
    package static func connect(to path: String) throws(PathTooLong) -> ConnectAttempt {
        var address = try address(path)
        let fd: Int32
        do {
            fd = try makeSocket()
        } catch {
            return .failed(error)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 { return .connected(fd) }
        let code = errno
        close(fd)
        if code == EAGAIN || code == EINPROGRESS { return .busy }
        return .failed(SystemError("connect \(path)", code: code))
    }

    /// Whether a process is accepting connections on `path` right now.
    package static func isServing(_ path: String) -> Bool {
        guard case let .connected(fd)? = try? connect(to: path) else { return false }
        close(fd)
        return true
    }

    /// The credentials of the process at the other end of `fd`.
    package static func peerCredentials(_ fd: Int32) -> (pid: pid_t, uid: uid_t)? {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard cama_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return nil }
        return (pid, uid)
    }
}
