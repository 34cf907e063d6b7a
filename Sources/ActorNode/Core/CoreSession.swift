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

/// The core as one shell sees it: a channel of the core's messages in, a channel of its own out.
public struct ShellSession<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    public let inbound: any Receiving<ServerMessage<State>>
    public let outbound: Chan<ClientMessage<Action>>

    public init(inbound: any Receiving<ServerMessage<State>>, outbound: Chan<ClientMessage<Action>>) {
        self.inbound = inbound
        self.outbound = outbound
    }
}

/// Wires a core session to a shell session with plain channels, in one process: what Root does
/// when no socket is needed (tests, embedding).
public enum InProcessSession {
    public static func pair<State, Action>(
        state: State.Type = State.self, action: Action.Type = Action.self,
        limits: Outbox<State>.Limits = .init()
    ) -> (core: CoreSession<State, Action>, shell: ShellSession<State, Action>) {
        let toCore = Chan<ClientMessage<Action>>()
        let outbox = Outbox<State>(limits: limits)
        let core = CoreSession<State, Action>(
            inbound: toCore.map { SessionInput.message($0) }, outbox: outbox, peer: "in-process"
        ) {
            toCore.close()
            outbox.finish()
        }
        return (core, ShellSession(inbound: outbox, outbound: toCore))
    }
}
