/// What a key or a prompt is given: the key, the newest state, the app's UI state (to change),
/// and the list's selected row.
public struct ScreenContext<App: ScreenApp> {
    /// The key pressed (Enter for a prompt).
    public let key: Key
    /// The newest state.
    public let state: App.State
    /// The app's UI state; what the key leaves in it is kept.
    public var ui: App.UI
    /// The key of the selected row, if the list selects and is not empty.
    public let selected: App.RowID?
    /// The index of the selected row in the list, with ``selected``.
    public let selectedIndex: Int?
    /// How many rows the list has.
    public let count: Int

    /// - Parameters:
    ///   - key: the key pressed.
    ///   - state: the newest state.
    ///   - ui: the app's UI state.
    ///   - selected: the selected row's key.
    ///   - selectedIndex: the selected row's index.
    ///   - count: the list's length.
    package init(key: Key, state: App.State, ui: App.UI, selected: App.RowID?, selectedIndex: Int?, count: Int) {
        self.key = key
        self.state = state
        self.ui = ui
        self.selected = selected
        self.selectedIndex = selectedIndex
        self.count = count
    }
}
