/// A key of an app's full screen: the keys that do it, how the help names them, the help's
/// line, and what it does, as a function of the ``ScreenContext`` (it may change the app's UI
/// state) returning the commands for the kit (actions to send, a prompt to open, quitting).
///
/// ```swift
/// KeyBinding(" ", "x", label: "space or x", help: "mark done / not done") { screen in
///     screen.selected.map { [.send(.toggle(id: $0))] } ?? []
/// }
/// ```
public struct KeyBinding<App: ScreenApp>: Sendable {
    /// The keys that do it.
    public let keys: [Key]
    /// How the help names the keys: by default their names, with spaces between.
    public let label: String
    /// The help's line for it; nil to leave it out of the help (a key listed with another).
    public let help: String?
    /// What it does.
    package let run: @Sendable (inout ScreenContext<App>) -> [ScreenCommand<App>]

    /// - Parameters:
    ///   - keys: the keys that do it (a character literal is a key: `"a"`).
    ///   - label: how the help names them; by default their names (``Key/name``) with spaces.
    ///   - help: the help's line; nil to leave it out.
    ///   - run: what it does: it may change `screen.ui`, and returns the commands for the kit.
    public init(
        _ keys: Key..., label: String? = nil, help: String?,
        run: @escaping @Sendable (_ screen: inout ScreenContext<App>) -> [ScreenCommand<App>]
    ) {
        self.keys = keys
        self.label = label ?? keys.map(\.name).joined(separator: " ")
        self.help = help
        self.run = run
    }
}
