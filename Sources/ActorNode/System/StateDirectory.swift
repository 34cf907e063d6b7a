import Glibc

/// Where durable files live (the journal, snapshots and logs): `--state-dir`, else
/// `$CAMA_STATE_DIR`, else `$XDG_STATE_HOME/cama`, else `~/.local/state/cama`. Never under the
/// runtime directory, which is wiped at logout.
public enum StateDirectory {
    public static func resolve(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let variable = environment["CAMA_STATE_DIR"], !variable.isEmpty { return variable }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/cama" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/cama-\(getuid())-home"
        return home + "/.local/state/cama"
    }

    /// Why a state directory cannot be used; the description says what to do.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Creates the directory (and missing parents) with mode 0700, then refuses it unless it is
    /// a directory of this user that no one else can write to (anyone who could would be able
    /// to rewrite the journal, and so the state).
    public static func prepare(_ path: String) throws(Problem) {
        do {
            try Directories.create(path)
        } catch {
            throw Problem(description: "cannot create the state directory \(path): \(error.reason); choose another with --state-dir")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Problem(description: "cannot use the state directory \(path): \(SystemError("stat").reason); choose another with --state-dir")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Problem(description: "the state directory \(path) is not a directory; choose another with --state-dir")
        }
        guard info.st_uid == getuid() else {
            throw Problem(description: "the state directory \(path) belongs to user \(info.st_uid), not to you (\(getuid())); choose another with --state-dir")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o022 == 0 else {
            throw Problem(description: "the state directory \(path) can be written by other users (mode \(octal(mode))); run 'chmod 700 \(path)' or choose another with --state-dir")
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
