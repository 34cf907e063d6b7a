import Glibc

/// Making sure a socket's directory is safe: private to this user, both for the core that
/// creates the socket there and for the clients that connect to it. (Which path an app uses is
/// the app's business: see `AppNaming`.)
package enum SocketPath {
    /// Why a socket directory was refused.
    package struct UnsafeDirectory: Error, CustomStringConvertible {
        package var description: String
    }

    /// Creates the socket's directory with mode 0700 if it is missing (and any missing parents),
    /// then refuses it unless it is a directory owned by this user that no one else can enter.
    package static func prepareDirectory(for socketPath: String) throws(UnsafeDirectory) {
        do {
            try Directories.preparePrivate(
                PathName.directory(of: socketPath), role: "the socket directory", forbidden: 0o077,
                exposure: "is open to other users", alternative: "choose another --socket")
        } catch {
            throw UnsafeDirectory(description: error.description)
        }
    }

    /// Before a client connects: refuses a socket whose directory exists but is not this user's
    /// private directory (the rule the core applies when it creates its socket there), because
    /// whoever controls the directory decides who answers at the path. A missing directory is
    /// not refused: there is no socket to talk to then, and connecting says so.
    /// - Parameter socketPath: the socket the client is about to connect to.
    package static func verifyDirectory(of socketPath: String) throws(UnsafeDirectory) {
        let directory = PathName.directory(of: socketPath)
        var info = stat()
        guard stat(directory, &info) == 0 else { return }
        let advice = "a core of yours never serves there; remove it or choose another --socket"
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw UnsafeDirectory(description: "the socket directory \(directory) is not a directory; \(advice)")
        }
        guard info.st_uid == getuid() else {
            throw UnsafeDirectory(description: "refusing to connect to \(socketPath): its directory \(directory) belongs to user \(info.st_uid), not to you (\(getuid())), so anyone could be answering there; \(advice)")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw UnsafeDirectory(description: "refusing to connect to \(socketPath): its directory \(directory) is open to other users (mode \(String(mode, radix: 8))), so anyone could be answering there; run 'chmod 700 \(directory)' if it is yours, or choose another --socket")
        }
    }

}
