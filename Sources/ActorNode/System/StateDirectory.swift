import Glibc

/// Where durable files live (logs now; journals and snapshots later): `--state-dir`, else
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

    /// Creates the directory (and missing parents) with mode 0700.
    public static func create(_ path: String) throws(SystemError) {
        try Directories.create(path)
    }
}
