import Wire

/// The core as one shell sees it: a channel of the core's messages in, a channel of its own out.
public struct ShellSession<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    public let inbound: any Receiving<ServerMessage<State>>
    public let outbound: Chan<ClientMessage<Action>>

    public init(inbound: any Receiving<ServerMessage<State>>, outbound: Chan<ClientMessage<Action>>) {
        self.inbound = inbound
        self.outbound = outbound
    }
}
