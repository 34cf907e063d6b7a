import Glibc

/// An exclusive lock beside the socket (`PATH.lock`), held by whoever serves the socket, with
/// that process's pid written in it. It tells a live owner from a stale socket file left by a
/// dead one, and keeps two processes from fighting over one path. The same kind of lock keeps
/// two cores out of one state directory.
package final class SocketLock: Sendable {
    package let path: String
    private let fd: Int32

    /// The lock file for a socket path.
    package static func lockPath(for socketPath: String) -> String {
        socketPath + ".lock"
    }

    /// Why the lock was not taken.
    package enum Failure: Error, CustomStringConvertible {
        /// Another live process holds it.
        case held(path: String, pid: pid_t?)
        case system(SystemError)

        package var description: String {
            switch self {
            case let .held(path, pid?): return "\(path) is held by process \(pid)"
            case let .held(path, nil): return "\(path) is held by another process"
            case let .system(error): return error.description
            }
        }
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock for `socketPath` without waiting, and writes this process's pid in it.
    package static func acquire(for socketPath: String) throws(Failure) -> SocketLock {
        try acquire(path: lockPath(for: socketPath))
    }

    /// Takes the lock file at `path` (any path, e.g. a state directory's) without waiting.
    package static func acquire(path: String) throws(Failure) -> SocketLock {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw .system(SystemError("open \(path)")) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK { throw .held(path: path, pid: holder(path: path)) }
                throw .system(SystemError("flock \(path)", code: code))
            }
            // The file may have been removed (and re-created) by its previous owner between our
            // open and our flock; then we locked a file nobody else can see. Start over.
            var opened = stat()
            var current = stat()
            guard fstat(fd, &opened) == 0, stat(path, &current) == 0,
                  opened.st_dev == current.st_dev, opened.st_ino == current.st_ino else {
                close(fd)
                continue
            }
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            return SocketLock(path: path, fd: fd)
        }
    }

    /// The pid written in the lock of `socketPath` while the lock is held; nil when nobody holds it.
    package static func holder(of socketPath: String) -> pid_t? {
        holder(path: lockPath(for: socketPath))
    }

    /// The pid written in the lock file at `path` while it is held; nil when nobody holds it.
    package static func holder(path: String) -> pid_t? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0 ..< count], as: UTF8.self)
        return pid_t(text.trimmingWhitespace())
    }

    /// Removes the lock file and releases the lock.
    package func release() {
        unlink(path)
        close(fd)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
