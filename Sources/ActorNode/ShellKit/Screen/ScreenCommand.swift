/// What a key or a prompt asks of the kit, besides the change it made to the app's UI state.
public enum ScreenCommand<App: ScreenApp>: Sendable {
    /// Send an action to the core (its reject, if any, shows in the status line).
    case send(App.Action)
    /// Open a prompt on the bottom line, with `text` typed in it already (an item's text to
    /// edit); Enter gives the line to the prompt, Esc closes it.
    case prompt(Prompt<App>, text: String = "")
    /// Ask a yes-or-no question on the bottom line ("clear all 3 items?"); `y` sends the
    /// actions, any other key sends nothing.
    case confirm(String, yes: [App.Action])
    /// Show a line in the status line until the next key.
    case message(String)
    /// Leave the full screen (and `attach`).
    case quit
    /// Draw the whole screen again.
    case redraw
}
