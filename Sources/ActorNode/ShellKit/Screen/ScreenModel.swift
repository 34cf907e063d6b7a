/// Everything a full screen shows, as a value: the newest state and the app's UI state, and the
/// kit's own UI state (where the list is looked at, what the keys are doing, the input line, the
/// last message, the connection). Pure, like an Elm model with its update (``press(_:)``,
/// ``receive(_:revision:)``) and view (``frame(rows:columns:)``): nothing here touches the
/// terminal, so tests drive it key by key.
package struct ScreenModel<App: ScreenApp> {
    /// What the keys are doing.
    package enum Mode {
        /// Moving through the list, or typing in the input line.
        case normal
        /// The keys shown over the list.
        case help
        /// A line of text asked for on the bottom line.
        case prompt(Prompt<App>)
        /// A yes-or-no question on the bottom line.
        case confirm(String, yes: [App.Action])
    }

    /// The link to the core, for the status line.
    package enum Connection: Equatable, Sendable {
        case connected
        /// Lost, with the client's announcement ("...; reconnecting to HOST").
        case reconnecting(String)
    }

    /// A line shown in the status line until the next key.
    package struct Message: Equatable, Sendable {
        package var text: String
        package var isError: Bool

        package init(_ text: String, isError: Bool) {
            self.text = text
            self.isError = isError
        }
    }

    /// What the kit asks of the loop.
    package enum Output {
        case send(App.Action)
        case quit
        /// Draw everything again.
        case redraw
    }

    /// The newest state; nil until the core's first.
    package private(set) var state: App.State?
    package private(set) var revision: UInt64 = 0
    package var ui: App.UI
    package var cursor = ListCursor<App.RowID>()
    package var mode = Mode.normal
    /// Each prompt's line, by its label, with its history.
    package var promptLines: [String: InputLine] = [:]
    /// The input line below the list (``ScreenApp/input``).
    package var inputLine = InputLine()
    /// The first line of the help's body shown, when the help is taller than the screen.
    package var helpScroll = 0
    package var message: Message?
    package var connection = Connection.connected
    package var shells = 1
    /// The core's socket, for the status line.
    package let socket: String
    /// How many list rows the last frame had: a page, for PgUp and PgDn.
    package var page = 10
    /// The view of the state and the UI state, until either changes.
    private var screen: Screen<App.RowID>?
    /// The list's rows on screen in the last frame, by key, as the app gave them and as they
    /// were laid out: a row that is the same in the next frame is not laid out again.
    var laidOut: [App.RowID: (row: Row, columns: Int, line: ScreenLine)] = [:]

    /// - Parameters:
    ///   - socket: the core's socket, for the status line.
    ///   - ui: the app's UI state to start with.
    package init(socket: String, ui: App.UI) {
        self.socket = socket
        self.ui = ui
    }

    /// A new state: the view is made again, and the list's selection and scroll position follow
    /// their rows.
    /// - Parameters:
    ///   - state: the newest state.
    ///   - revision: its revision.
    package mutating func receive(_ state: App.State, revision: UInt64) {
        self.state = state
        self.revision = revision
        screen = nil
        if let list = view()?.list { cursor.follow(list) }
    }

    /// The app's view of the state and the UI state, made once for both (nil before the first
    /// state).
    package mutating func view() -> Screen<App.RowID>? {
        if let screen { return screen }
        guard let state else { return nil }
        let made = App.view(state, ui)
        screen = made
        return made
    }

    /// Runs an app's key or prompt: its change to the UI state is kept (and the view made again
    /// from it), and its commands are carried out.
    /// - Parameters:
    ///   - key: the key pressed.
    ///   - body: the app's code.
    /// - Returns: what the loop must do.
    mutating func perform(_ key: Key, _ body: (inout ScreenContext<App>) -> [ScreenCommand<App>]) -> [Output] {
        guard let state, let list = view()?.list else { return [] }
        let selects = list.kind == .selecting && list.count > 0
        var context = ScreenContext<App>(
            key: key, state: state, ui: ui, selected: selects ? cursor.selected : nil,
            selectedIndex: selects ? cursor.selectedIndex : nil, count: list.count)
        let commands = body(&context)
        ui = context.ui
        if App.UI.self != Void.self {
            screen = nil
            if let list = view()?.list { cursor.follow(list) }
        }
        var outputs: [Output] = []
        for command in commands {
            switch command {
            case let .send(action):
                outputs.append(.send(action))
            case let .prompt(prompt, text):
                mode = .prompt(prompt)
                promptLines[prompt.label, default: InputLine()].start(with: text)
            case let .confirm(question, actions):
                mode = .confirm(question, yes: actions)
            case let .message(text):
                message = Message(text, isError: false)
            case .quit:
                outputs.append(.quit)
                return outputs
            case .redraw:
                outputs.append(.redraw)
            }
        }
        return outputs
    }
}

extension ScreenModel.Output: Equatable where App.Action: Equatable {}
