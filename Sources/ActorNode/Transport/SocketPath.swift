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

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
