import Glibc

/// What an app is called where it meets the system: the environment variables that point at its
/// socket and its state directory, and the directories used when they are not set. Every
/// command of an app resolves its paths the same way, through its naming:
///
/// - the socket: `--socket PATH`, else `$<PREFIX>_SOCKET`, else
///   `$XDG_RUNTIME_DIR/<name>/core.sock`, else `/tmp/<name>-$UID/core.sock`;
/// - the state directory: `--state-dir DIR`, else `$<PREFIX>_STATE_DIR`, else
///   `$XDG_STATE_HOME/<name>`, else `~/.local/state/<name>`.
///
/// Empty variables count as unset. `AppNaming("cama")` gives `CAMA_SOCKET` and
/// `$XDG_RUNTIME_DIR/cama/core.sock`; each app has a name of its own, so that two apps never
/// share a socket.
public struct AppNaming: Sendable, Equatable {
    /// The directory names' part: `cama`.
    public let name: String
    /// The environment variables' prefix: `CAMA`.
    public let environmentPrefix: String

    /// - Parameters:
    ///   - name: a short lowercase name, used in directory names.
    ///   - environmentPrefix: the variables' prefix; by default the name in capitals, with `-`
    ///     as `_`.
    public init(_ name: String, environmentPrefix: String? = nil) {
        self.name = name
        self.environmentPrefix = environmentPrefix ?? name.uppercased().replacingDashes()
    }

    /// The variable that names the socket: `CAMA_SOCKET`.
    package var socketVariable: String { environmentPrefix + "_SOCKET" }

    /// The variable that names the state directory: `CAMA_STATE_DIR`.
    package var stateDirectoryVariable: String { environmentPrefix + "_STATE_DIR" }

    /// The socket to use.
    /// - Parameters:
    ///   - option: the `--socket` given, if any.
    ///   - environment: the process's environment.
    package func socketPath(option: String?, environment: [String: String]) -> String {
        socketPath(option: option) { environment[$0] }
    }

    /// The socket to use, reading only the variables it needs.
    /// - Parameters:
    ///   - option: the `--socket` given, if any.
    ///   - variable: the value of an environment variable, if set.
    package func socketPath(option: String?, variable: (String) -> String?) -> String {
        if let option, !option.isEmpty { return option }
        if let value = variable(socketVariable), !value.isEmpty { return value }
        if let runtime = variable("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            return PathName.join(runtime, "\(name)/core.sock")
        }
        return "/tmp/\(name)-\(getuid())/core.sock"
    }

    /// The state directory to use.
    /// - Parameters:
    ///   - option: the `--state-dir` given, if any.
    ///   - environment: the process's environment.
    package func stateDirectory(option: String?, environment: [String: String]) -> String {
        if let option, !option.isEmpty { return option }
        if let variable = environment[stateDirectoryVariable], !variable.isEmpty { return variable }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return PathName.join(state, name) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp/\(name)-\(getuid())-home"
        return PathName.join(home, ".local/state/\(name)")
    }

    /// How the socket is found, for `--help`: `$CAMA_SOCKET, else $XDG_RUNTIME_DIR/cama/core.sock,
    /// else /tmp/cama-$UID/core.sock`.
    package var socketSearch: String {
        "$\(socketVariable), else $XDG_RUNTIME_DIR/\(name)/core.sock, else /tmp/\(name)-$UID/core.sock"
    }

    /// How the state directory is found, for `--help`.
    package var stateDirectorySearch: String {
        "$\(stateDirectoryVariable), else $XDG_STATE_HOME/\(name), else ~/.local/state/\(name)"
    }
}

extension String {
    fileprivate func replacingDashes() -> String {
        String(map { $0 == "-" ? "_" : $0 })
    }
}
