@testable import ActorNode
import Wire

extension EngineClient {
    /// A client with no socket, waiting for its hello: for tests of the engine's bookkeeping
    /// (its table, its lists of shells and of clients to settle).
    /// - Parameter number: its number.
    static func unconnected(_ number: Int) -> EngineClient {
        EngineClient(number: number, fd: -1, peer: "client \(number)", decoder: FrameDecoder(), phase: .awaitingHello(nil))
    }
}
