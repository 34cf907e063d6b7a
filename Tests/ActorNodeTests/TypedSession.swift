@testable import ActorNode
import Wire

/// A ``ShellSession`` spoken message by message, for tests that play a client by hand: each
/// message sent is encoded and framed, each frame received is decoded the general way.
struct TypedSession<State: Codable & Sendable, Action: Codable & Sendable>: Sendable {
    let raw: ShellSession

    init(_ raw: ShellSession) {
        self.raw = raw
    }

    var outbound: Outbound { Outbound(raw: raw.outbound) }
    var inbound: Inbound { Inbound(raw: raw.inbound) }

    struct Outbound: Sendable {
        let raw: Chan<[UInt8]>

        @discardableResult
        func send(_ message: ClientMessage<Action>) async -> Bool {
            await raw.send(Self.frame(message))
        }

        @discardableResult
        func trySend(_ message: ClientMessage<Action>) -> Bool {
            raw.trySend(Self.frame(message))
        }

        private static func frame(_ message: ClientMessage<Action>) -> [UInt8] {
            (try? Frame.encode(WireJSON.encode(message))) ?? []
        }
    }

    struct Inbound: Sendable {
        let raw: any Receiving<SessionInput>

        /// The next message, or nil at the end of the stream (or a frame that is no message).
        func receive() async -> ServerMessage<State>? {
            guard case let .frame(payload)? = await raw.receive() else { return nil }
            return try? WireJSON.decode(ServerMessage<State>.self, from: payload)
        }
    }
}
