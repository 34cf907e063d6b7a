/// Something the core tells every shell and watcher that is not part of the state: an event to
/// show once ("focus on #3 is complete"). Notices are not replayed to shells that attach later.
package struct Notice: Codable, Sendable, Equatable {
    package var text: String

    package init(text: String) {
        self.text = text
    }
}

/// How many shells and watchers are attached, sent to each of them whenever the number
/// changes, so a status line can show who else is there.
package struct Presence: Codable, Sendable, Equatable {
    package var shells: Int

    package init(shells: Int) {
        self.shells = shells
    }
}

/// Thrown while decoding a message whose type this side does not know. A client skips such
/// messages (a newer core may send more kinds); the core treats them as a bad frame.
package struct UnknownMessageType: Error, Equatable, Sendable {
    package var name: String
}
