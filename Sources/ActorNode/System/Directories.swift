import Glibc

/// Creating private directories, and refusing ones that are not private enough.
package enum Directories {
    /// Creates `path` and any missing parents with mode 0700 (`mkdir -p`); existing ones are left
    /// as they are.
    package static func create(_ path: String) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = PathName.directory(of: path)
        if parent != path { try create(parent) }
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw SystemError("mkdir \(path)")
        }
    }

    /// Why a directory was refused; the description says what to do instead.
    package struct Refusal: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// Creates `path` (mode 0700, with any missing parents) if it is missing, then refuses it
    /// unless it is a directory of this user whose mode has none of the `forbidden` bits.
    /// Messages name it as `role` ("the socket directory"), say what the forbidden bits allow
    /// (`exposure`: "is open to other users"), and end with `alternative` ("choose another
    /// --socket").
    package static func preparePrivate(
        _ path: String, role: String, forbidden: mode_t, exposure: String, alternative: String
    ) throws(Refusal) {
        do {
            try create(path)
        } catch {
            throw Refusal(description: "cannot create \(role) \(path): \(error.reason); \(alternative)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Refusal(description: "cannot use \(role) \(path): \(SystemError("stat").reason); \(alternative)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Refusal(description: "\(role) \(path) is not a directory; \(alternative)")
        }
        guard info.st_uid == getuid() else {
            throw Refusal(description: "\(role) \(path) belongs to user \(info.st_uid), not to you (\(getuid())); \(alternative)")
        }
        let mode = info.st_mode & 0o777
        guard mode & forbidden == 0 else {
            throw Refusal(description: "\(role) \(path) \(exposure) (mode \(octal(mode))); run 'chmod 700 \(path)' or \(alternative)")
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
