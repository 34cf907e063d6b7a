import Wire

/// What the core receives from one client: its messages, or an action that did not decode
/// (which the core rejects without ending the session).
public enum SessionInput<Action: Codable & Sendable>: Sendable {
    case message(ClientMessage<Action>)
    case invalidAction(InvalidActionError)
    /// The client broke the protocol (a frame too large, one that is not a message): the core
    /// answers everything it owes for what came before, then this error, then closes.
    case violation(ErrorMessage)
}

/// One client as the core sees it: a channel in, an outbox out, and a way to cut it off.
/// The core does not know whether a socket or a plain channel is behind it.
public struct CoreSession<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    public let inbound: any Receiving<SessionInput<Action>>
    public let outbox: Outbox<State>
    /// Ends the session at once, without flushing (a client that cannot keep up).
    public let disconnect: @Sendable () -> Void
    /// Who is at the other end, for logs ("pid 4242").
    public let peer: String

    public init(inbound: any Receiving<SessionInput<Action>>, outbox: Outbox<State>, peer: String, disconnect: @escaping @Sendable () -> Void) {
        self.inbound = inbound
        self.outbox = outbox
        self.peer = peer
        self.disconnect = disconnect
    }
}
