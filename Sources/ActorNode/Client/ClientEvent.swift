import Wire

/// What a ``ClientMachine`` asks its driver to do, in order.
package enum ClientOutput: Equatable, Sendable {
    /// Open a new connection to the core now, then call ``ClientMachine/connected(now:)`` or
    /// ``ClientMachine/connectFailed(_:now:)``.
    case connect
    /// Write these bytes (whole frames) on the current connection.
    case write([UInt8])
    /// Close the current connection (after writing what came before).
    case disconnect
    /// Something to tell the user or the program.
    case event(ClientEvent)
}

/// What a client learns from the core, in the order it happened.
package enum ClientEvent: Equatable, Sendable {
    /// The first welcome: the session is open at this revision, and the mirror holds its state.
    case welcomed(revision: UInt64, shells: Int, pid: Int32)
    /// A rendition brought the mirror to a new revision: `patch` was applied to it, or (nil) a
    /// snapshot replaced it whole. Drivers show the newest state once they have taken every
    /// event at hand.
    case changed(revision: UInt64, patch: JSONPatch?)
    /// The core's answer to the action numbered `seq`.
    case answered(seq: UInt64, ActionOutcome)
    /// The patch for `revision` did not apply to the mirror (the app's patch and its state's
    /// encoding disagree): the whole state was asked for, and comes as a snapshot (a
    /// ``changed(revision:patch:)`` without a patch).
    case resyncing(revision: UInt64, reason: String)
    /// Something the core said to every shell.
    case notice(String)
    /// How many shells and watchers are attached now.
    case presence(shells: Int)
    /// The connection was lost; the machine is reconnecting. The text says how it was lost and
    /// that it is reconnecting, and where to ("...; reconnecting to HOST"). Actions
    /// submitted meanwhile wait, and are sent (or sent again) once it is back.
    case reconnecting(String)
    /// Back, at this revision: a new welcome, whose state replaced the mirror's (it may be older
    /// than the last one shown, when a machine crash took back what was not on disk yet).
    /// Unanswered actions have been sent again with their original numbers.
    case reconnected(revision: UInt64)
    /// The core's reply to a query (``ClientMachine/ask(_:)``).
    case replied(Reply)
    /// One action of a history the client asked for.
    case entry(HistoryEntry)
    /// The session is over: how, or nil when this client closed it. Nothing follows.
    case ended(LinkError?)
}

extension ClientEvent {
    /// What a shell says, once, when it had to ask for the whole state
    /// (``resyncing(revision:reason:)``).
    /// - Parameters:
    ///   - revision: the revision whose patch did not apply.
    ///   - reason: why it did not apply.
    package static func resyncNote(revision: UInt64, reason: String) -> String {
        "the patch for revision \(revision) does not apply to this shell's copy of the state (\(PeerText.escaped(reason))); "
            + "asked the core for the whole state and carried on. The app's patches do not give the JSON its state encodes to: a bug of the app to report"
    }
}

