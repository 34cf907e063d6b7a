import Glibc

/// A claim on a socket path: the lock beside it, the listening socket, and the identity of the
/// socket file, so that on the way out the owner removes its own file and never a successor's.
/// A standalone core claims its socket this way; so does cama-launch, which then passes the
/// listening socket to each core it starts.
public struct SocketBinding: Sendable {
    public let path: String
    public let fd: Int32
    public let lock: SocketLock
    private let device: UInt64
    private let inode: UInt64

    /// Takes the lock, clears a stale socket file left by a dead owner, and binds. `program`
    /// names the command in a usage error.
    public static func claim(_ path: String, program: String, log: (String) -> Void) throws(CommandFailure) -> SocketBinding {
        do {
            _ = try UnixSocket.address(path)
        } catch {
            throw .usage(error.description, program: program)
        }
        do {
            try SocketPath.prepareDirectory(for: path)
        } catch {
            throw CommandFailure(.rejected, error.description)
        }
        let lock: SocketLock
        do {
            lock = try SocketLock.acquire(for: path)
        } catch {
            if case let .held(_, pid) = error {
                let owner = pid.map { " (pid \($0))" } ?? ""
                throw CommandFailure(.rejected, "a core is already serving \(path)\(owner); stop it with 'cama-launch stop --socket \(path)' or choose another --socket")
            }
            throw CommandFailure(.rejected, "cannot lock \(path): \(error)")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                lock.release()
                throw CommandFailure(.rejected, "\(path) exists and is not a socket; remove it or choose another --socket")
            }
            if UnixSocket.isServing(path) {
                lock.release()
                throw CommandFailure(.rejected, "another process serves \(path) without holding its lock; stop it or choose another --socket")
            }
            unlink(path)
            log("removed a stale socket left by a core that is gone")
        }
        let fd: Int32
        do {
            fd = try UnixSocket.listen(at: path)
        } catch {
            lock.release()
            throw CommandFailure(.rejected, "cannot serve \(path): \(error)")
        }
        var bound = stat()
        _ = stat(path, &bound)
        return SocketBinding(path: path, fd: fd, lock: lock, device: UInt64(bound.st_dev), inode: UInt64(bound.st_ino))
    }

    /// Removes the socket file if it is still ours, then releases the lock. The descriptor is
    /// left to whoever uses it (a listener closes it).
    public func release() {
        var info = stat()
        if lstat(path, &info) == 0, UInt64(info.st_dev) == device, UInt64(info.st_ino) == inode {
            unlink(path)
        }
        lock.release()
    }
}

