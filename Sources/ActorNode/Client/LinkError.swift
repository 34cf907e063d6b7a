import Wire

/// Why a shell's link to the core failed or ended.
package enum LinkError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No core could be reached (connection refused, permission denied).
    case unreachable(String)
    /// There is no socket at the path: no core, and no launcher keeping one.
    case noSocket(String)
    /// The core did not answer in time.
    case timedOut(String)
    /// The core and this client speak different protocol versions.
    case versionMismatch(ErrorMessage)
    /// Either side broke the protocol, or the core sent an error.
    case protocolError(ErrorMessage)
    /// The connection closed without a goodbye (the core died, or this side closed it).
    case closed(String)
    /// The core said bye (it is shutting down); the reason, if it gave one.
    case goodbye(String?)
    /// The socket is not one this user can trust: its directory is not private to this user, or
    /// the process serving it runs as another user (not root). Nothing was sent to it.
    case untrusted(String)
    /// The way to a core on another machine failed before the protocol began: ssh could not
    /// connect, the remote command is missing, or the remote side reached no core. The message
    /// is whole (what happened, on which host, what to do); a lost core is tried again.
    case remote(String)
    /// What came from the far side of ssh before the protocol was not the bridge's greeting (a
    /// shell startup file that prints): no protocol can follow. The message is whole.
    case remoteNoise(String)

    package var description: String {
        switch self {
        case let .unreachable(reason), let .noSocket(reason): return reason
        case let .timedOut(reason): return reason
        case let .versionMismatch(error): return PeerText.escaped(error.message)
        case let .protocolError(error): return "\(PeerText.escaped(error.message)) (\(PeerText.escaped(error.code)))"
        case let .closed(reason): return reason
        case let .goodbye(reason?): return "the core said goodbye: \(PeerText.escaped(reason))"
        case .goodbye(nil): return "the core said goodbye"
        case let .untrusted(reason): return reason
        case let .remote(reason), let .remoteNoise(reason): return reason
        }
    }
}

/// The core's answer to one action.
package enum ActionOutcome: Equatable, Sendable {
    case applied(revision: UInt64)
    case rejected(Reject)
}

/// What a shell learns from the core, besides the answers to its own actions.
package enum LinkEvent<State: Sendable>: Sendable {
    /// The state at a revision: the newest one each time the consumer asks, starting with the
    /// welcome's (or a newer one); revisions grow and may be skipped, and repeat only if a core
    /// came back at an older revision after a reconnection.
    case state(revision: UInt64, State)
    /// Something the core said to every shell (not part of the state).
    case notice(String)
    /// How many shells and watchers are attached now.
    case presence(shells: Int)
    /// The connection was lost; the link is reconnecting. The text says how it was lost and
    /// that it is reconnecting, and where to ("...; reconnecting to HOST"). Actions sent
    /// meanwhile wait, and are sent (or sent again) once it is back.
    case reconnecting(String)
    /// The link is back, at this revision; the next state event starts from the new welcome.
    case reconnected(revision: UInt64)
    /// The link ended, with the reason, or nil when this client closed it; no more events follow.
    case ended(LinkError?)
}
