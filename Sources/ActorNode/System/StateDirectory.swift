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

    /// Creates the directory (and missing parents) with mode 0700, then refuses it unless it is
    /// a directory of this user that no one else can write to (anyone who could would be able
    /// to rewrite the journal, and so the state).
    public static func prepare(_ path: String) throws(Directories.Refusal) {
        try Directories.preparePrivate(
            path, role: "the state directory", forbidden: 0o022,
            exposure: "can be written by other users", alternative: "choose another with --state-dir")
    }
}
