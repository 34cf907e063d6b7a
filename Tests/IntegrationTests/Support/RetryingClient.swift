import ActorNode
import Wire

/// A client that keeps its id and resends an unacknowledged action with the same sequence
/// number after reconnecting, as a shell should across a core's restart. It sends one action
/// at a time and returns once every action was acknowledged.
struct RetryingClient {
    let socket: String
    let id: String

    /// What happened: the revision each action was acknowledged with, and how often the
    /// connection was lost.
    struct Result {
        var revisions: [UInt64] = []
        var reconnects = 0
    }

    func send(_ actions: [String], deadline: ContinuousClock.Instant) async throws -> Result {
        var result = Result()
        var connection: RawClient?
        for (index, action) in actions.enumerated() {
            let seq = UInt64(index + 1)
            while true {
                guard ContinuousClock.now < deadline else { throw RetryingClientTimeout(client: id, seq: seq) }
                if connection == nil {
                    connection = try? await connect()
                    if connection == nil {
                        try await Task.sleep(for: .milliseconds(20))
                        continue
                    }
                }
                do {
                    try await connection!.send(#"{"action":{"client":"\#(id)","seq":\#(seq),"action":\#(action)}}"#)
                    if let revision = try await answer(to: seq, on: connection!) {
                        result.revisions.append(revision)
                        break
                    }
                } catch {
                    // Lost in the middle: reconnect and send the same (client, seq) again.
                }
                connection?.close()
                connection = nil
                result.reconnects += 1
            }
        }
        connection?.close()
        return result
    }

    private func connect() async throws -> RawClient {
        let client = try RawClient.connect(socket)
        try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"\#(id)","name":"retrying test client"}}"#)
        guard try await client.receive(timeout: .seconds(5))?.messageType == "welcome" else {
            client.close()
            throw RetryingClientTimeout(client: id, seq: 0)
        }
        return client
    }

    /// The revision of the ack for `seq`; nil when the connection ended first.
    private func answer(to seq: UInt64, on connection: RawClient) async throws -> UInt64? {
        while let message = try await connection.receive(timeout: .seconds(10)) {
            if let ack = message["ack"], ack["seq"]?.intValue == Int64(seq) {
                return UInt64(ack["revision"]?.intValue ?? 0)
            }
            if message["reject"] != nil || message["error"] != nil {
                throw RetryingClientRejected(message: "\(message)")
            }
        }
        return nil
    }
}

struct RetryingClientTimeout: Error {
    let client: String
    let seq: UInt64
}

struct RetryingClientRejected: Error {
    let message: String
}
