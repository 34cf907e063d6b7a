import Glibc

/// Where the core's socket lives, and making sure its directory is safe to put it in.
public enum SocketPath {
    /// The socket path: `--socket`, else `$CAMA_SOCKET`, else `$XDG_RUNTIME_DIR/cama/core.sock`,
    /// else `/tmp/cama-$UID/core.sock`. Empty variables count as unset.
    public static func resolve(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let variable = environment["CAMA_SOCKET"], !variable.isEmpty { return variable }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return join(runtime, "cama/core.sock")
        }
        return "/tmp/cama-\(getuid())/core.sock"
    }

    /// The directory part of a path ("." for a bare file name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of a path.
    public static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Why a socket directory was refused.
    public struct UnsafeDirectory: Error, CustomStringConvertible {
        public var description: String
    }

    /// Creates the socket's directory with mode 0700 if it is missing (and any missing parents),
    /// then refuses it unless it is a directory owned by this user that no one else can enter.
    public static func prepareDirectory(for socketPath: String) throws(UnsafeDirectory) {
        do {
            try Directories.preparePrivate(
                directory(of: socketPath), role: "the socket directory", forbidden: 0o077,
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
    public static func verifyDirectory(of socketPath: String) throws(UnsafeDirectory) {
        let directory = directory(of: socketPath)
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

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
