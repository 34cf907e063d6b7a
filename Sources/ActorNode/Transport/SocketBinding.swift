import Glibc

/// A claim on a socket path: the lock beside it, the listening socket, and the identity of the
/// socket file, so that on the way out the owner removes its own file and never a successor's.
/// A standalone core claims its socket this way; so does cama-launch, which then passes the
/// listening socket to each core it starts.
package struct SocketBinding: Sendable {
    package let path: String
    package let fd: Int32
    package let lock: SocketLock
    private let device: UInt64
    private let inode: UInt64

    /// Why a socket could not be claimed.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The path does not fit in a socket address (a usage error).
        case badPath(String)
        /// The socket's directory is not private to this user.
        case unsafeDirectory(String)
        /// Another process holds the socket's lock: a live core or launcher serves it.
        case alreadyServed(path: String, pid: pid_t?)
        /// Something else than a socket is at the path.
        case notASocket(path: String)
        /// A process serves the path without holding its lock (not one of ours).
        case servedWithoutLock(path: String)
        /// The lock file could not be taken for another reason.
        case cannotLock(path: String, reason: String)
        /// Binding or listening failed.
        case cannotBind(path: String, reason: String)

        package var description: String {
            switch self {
            case let .badPath(reason), let .unsafeDirectory(reason):
                return reason
            case let .alreadyServed(path, pid):
                let owner = pid.map { " (pid \($0))" } ?? ""
                return "a core is already serving \(path)\(owner); stop it with 'cama-launch stop --socket \(path)' or choose another --socket"
            case let .notASocket(path):
                return "\(path) exists and is not a socket; remove it or choose another --socket"
            case let .servedWithoutLock(path):
                return "another process serves \(path) without holding its lock; stop it or choose another --socket"
            case let .cannotLock(path, reason):
                return "cannot lock \(path): \(reason)"
            case let .cannotBind(path, reason):
                return "cannot serve \(path): \(reason)"
            }
        }
    }

    /// Takes the lock, clears a stale socket file left by a dead owner, and binds.
    /// - Parameters:
    ///   - path: the socket's path.
    ///   - log: where to say that a stale socket was removed.
    package static func claim(_ path: String, log: (String) -> Void) throws(Failure) -> SocketBinding {
        do {
            _ = try UnixSocket.address(path)
        } catch {
            throw .badPath(error.description)
        }
        do {
            try SocketPath.prepareDirectory(for: path)
        } catch {
            throw .unsafeDirectory(error.description)
        }
        let lock: SocketLock
        do {
            lock = try SocketLock.acquire(for: path)
        } catch {
            if case let .held(_, pid) = error { throw .alreadyServed(path: path, pid: pid) }
            throw .cannotLock(path: path, reason: "\(error)")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                lock.release()
                throw .notASocket(path: path)
            }
            if UnixSocket.isServing(path) {
                lock.release()
                throw .servedWithoutLock(path: path)
            }
            unlink(path)
            log("removed a stale socket left by a core that is gone")
        }
        let fd: Int32
        do {
            fd = try UnixSocket.listen(at: path)
        } catch {
            lock.release()
            throw .cannotBind(path: path, reason: "\(error)")
        }
        var bound = stat()
        _ = stat(path, &bound)
        return SocketBinding(path: path, fd: fd, lock: lock, device: UInt64(bound.st_dev), inode: UInt64(bound.st_ino))
    }

    /// Removes the socket file if it is still ours, then releases the lock. The descriptor is
    /// left to whoever uses it (a listener closes it).
    package func release() {
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode {
            unlink(path)
        }
        lock.release()
    }
}

