import Wire

/// The to-do app's contract: its state, its actions, and its name, `cama` (the socket at
/// `$CAMA_SOCKET`, `$XDG_RUNTIME_DIR/cama/core.sock`, ...). `core-daemon` and `shell-client`
/// both name it.
public enum Todo: AppContract {
    public typealias State = AppState
    public typealias Action = AppAction
    public static let name = "cama"
}
