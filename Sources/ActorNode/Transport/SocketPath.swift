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
        let directory = directory(of: socketPath)
        do {
            try Directories.create(directory)
        } catch {
            throw UnsafeDirectory(description: "cannot create the socket directory \(directory): \(error.reason)")
        }
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw UnsafeDirectory(description: "cannot use the socket directory \(directory): \(SystemError("stat").reason)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw UnsafeDirectory(description: "\(directory) is not a directory; choose another --socket")
        }
        guard info.st_uid == getuid() else {
            throw UnsafeDirectory(description: "the socket directory \(directory) belongs to user \(info.st_uid), not to you (\(getuid())); choose another --socket")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw UnsafeDirectory(description: "the socket directory \(directory) is open to other users (mode \(octal(mode))); run 'chmod 700 \(directory)' or choose another --socket")
        }
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
