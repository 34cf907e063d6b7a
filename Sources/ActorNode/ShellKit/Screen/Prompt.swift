/// A line of text asked for on the bottom line of a full screen (`add: `), edited with the
/// kit's line editor (← → Home End, Ctrl-A Ctrl-E Ctrl-U, Backspace Delete, ↑ ↓ for the lines
/// given to it before). Enter gives the text to `submit`, which may change the app's UI state and
/// returns the commands for the kit; Esc (or Ctrl-C) closes it and sends nothing. It is opened by
/// a key (``ScreenCommand/prompt(_:text:)``), or is the screen's ``ScreenApp/input`` line.
public struct Prompt<App: ScreenApp>: Sendable {
    /// What the line starts with: `add: `.
    public let label: String
    /// Lines for the help, as (what to type, what it does): the chat room's `/rename NEW`.
    public let help: [(typed: String, does: String)]
    /// What the text does.
    package let submit: @Sendable (String, inout ScreenContext<App>) -> [ScreenCommand<App>]

    /// - Parameters:
    ///   - label: what the line starts with.
    ///   - help: lines for the help, as (what to type, what it does).
    ///   - submit: what Enter does with the text: it may change `screen.ui`, and returns the
    ///     commands for the kit.
    public init(
        _ label: String, help: [(typed: String, does: String)] = [],
        submit: @escaping @Sendable (_ text: String, _ screen: inout ScreenContext<App>) -> [ScreenCommand<App>]
    ) {
        self.label = label
        self.help = help
        self.submit = submit
    }
}
