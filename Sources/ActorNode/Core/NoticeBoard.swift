import Synchronization

/// Where an app's effects post notices before the core that delivers them exists: the app's
/// environment is made first (the core needs it), then the core is connected to the board.
/// Notices posted before that are dropped.
package final class NoticeBoard: Sendable {
    private let deliver = Mutex<(@Sendable (String) -> Void)?>(nil)

    package init() {}

    /// Posts a notice to whatever is connected.
    package func post(_ text: String) {
        deliver.withLock { $0 }?(text)
    }

    /// Connects the board to a deliverer (a core's ``CoreEngine/notify(_:)``).
    package func connect(_ deliverer: @escaping @Sendable (String) -> Void) {
        deliver.withLock { $0 = deliverer }
    }
}
