import ActorNode
import Glibc
import Testing
import Wire

/// `query` at the protocol's level, from a client that writes frames by hand: one query at a
/// time per connection (a second one in flight is answered `busy` at once, and the first still
/// gets its reply); a `history` that fails is not followed.
@Suite("Queries about the past, frame by frame")
struct QueryProtocolTests {
    /// The messages a raw client receives until one is a reply to `id`.
    private func untilReply(_ client: RawClient, id: Int64) async throws -> [JSONValue] {
        var messages: [JSONValue] = []
        while let message = try await client.receive() {
            messages.append(message)
            if message["reply", "id"]?.intValue == id { break }
        }
        return messages
    }

    @Test("a second query in flight on one connection is answered busy; the first is answered", .timeLimit(.minutes(1)))
    func oneAtATime() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--state-dir", sandbox.stateDirectory])
        defer { core.process.send(SIGTERM) }
        for number in 1 ... 3 { #expect(try await sandbox.client(["send", "add", "item \(number)"]).status == 0) }
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        // Both in one write, so that the core reads the second while the first is in flight.
        // (Written apart, the first could be answered before the second arrived, on a machine
        // that held this test between the writes: seen in CI.)
        try await client.sendBytes(
            Frame.encode(Array(#"{"query":{"id":1,"history":{}}}"#.utf8)) + Frame.encode(Array(#"{"query":{"id":2,"state_at":1}}"#.utf8)))
        // The busy reply comes at once, before the first query's entries.
        var messages = try await untilReply(client, id: 1)
        let busy = messages.first { $0["reply", "id"]?.intValue == 2 }
        #expect(busy?["reply", "error", "code"] == .string("busy"), "\(messages)")
        messages = messages.filter { $0["reply", "id"]?.intValue != 2 }
        #expect(messages.compactMap { $0["entry", "revision"]?.intValue } == [1, 2, 3], "\(messages)")
        #expect(messages.last?["reply", "revision"]?.intValue == 3, "\(messages)")
        // Then the next query is answered.
        try await client.send(#"{"query":{"id":3,"state_at":1}}"#)
        let answer = try await untilReply(client, id: 3).last
        #expect(answer?["reply", "state", "todo", "nextId"]?.intValue == 2, "\(String(describing: answer))")
    }

    @Test("a history --follow that fails (past the horizon) follows nothing", .timeLimit(.minutes(1)))
    func failedFollow() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--state-dir", sandbox.stateDirectory, "--snapshot-every", "1024", "--keep-history", "0"])
        defer { core.process.send(SIGTERM) }
        for number in 1 ... 30 { #expect(try await sandbox.client(["send", "add", "item \(number)"]).status == 0) }
        let client = try RawClient.connect(sandbox.socket)
        defer { client.close() }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        try await client.send(#"{"query":{"id":7,"history":{"from":1,"follow":true}}}"#)
        let reply = try await untilReply(client, id: 7)
        #expect(reply.count == 1 && reply[0]["reply", "error", "code"] == .string("not_held"), "\(reply)")
        #expect(try await sandbox.client(["send", "add", "after"]).status == 0)
        // Nothing comes: the next message is the answer to a query asked now.
        try await client.send(#"{"query":{"id":8,"state_at":1}}"#)
        let next = try await client.receive()
        #expect(next?["reply", "id"]?.intValue == 8, "\(String(describing: next))")
    }
}
