import Glibc

/// Creating private directories.
public enum Directories {
    /// Creates `path` and any missing parents with mode 0700 (`mkdir -p`); existing ones are left
    /// as they are.
    public static func create(_ path: String) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = SocketPath.directory(of: path)
        if parent != path { try create(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw SystemError("mkdir \(path)")
        }
    }
}
