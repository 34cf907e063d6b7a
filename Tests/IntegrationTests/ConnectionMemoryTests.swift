import ActorNode
import Glibc
import Testing

/// What a connection costs is given back when it ends: a flood of short connections leaves the
/// core's memory where it was, long before any per-connection deadline (the handshake timeout)
/// could have freed it.
@Suite("Memory is returned when connections end")
struct ConnectionMemoryTests {
    @Test("two floods of 4,000 short connections (hello, welcome, close): the second needs no more memory than the first", .timeLimit(.minutes(2)))
    func flood() async throws {
        let sandbox = try Sandbox()
        // A handshake timeout far longer than the test: a timer that kept its memory until its
        // deadline would keep it for the whole test.
        let core = try await sandbox.startCore(["--handshake-timeout", "600"])
        // Warm up (allocator arenas, first-use caches), then take the baseline.
        try await connectAndLeave(sandbox.socket, count: 200)
        let baseline = try #require(memory(of: core.pid)).resident
        try await connectAndLeave(sandbox.socket, count: 4_000)
        let afterFirst = try #require(memory(of: core.pid)).resident
        try await connectAndLeave(sandbox.socket, count: 4_000)
        let afterSecond = try #require(memory(of: core.pid)).resident
        // Memory a first flood needed is reused by the second: nothing stays per connection.
        #expect(afterSecond < afterFirst + (5 << 18), "resident memory \(baseline >> 10) KiB, then \(afterFirst >> 10) KiB and \(afterSecond >> 10) KiB after two floods of 4,000 connections")
        #expect(afterSecond < baseline + (12 << 20))
    }

    /// Opens `count` connections, 50 at a time; each says hello as a script, takes its
    /// welcome and closes.
    private func connectAndLeave(_ socket: String, count: Int) async throws {
        for batch in stride(from: 0, to: count, by: 50) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in batch ..< min(count, batch + 50) {
                    group.addTask {
                        let client = try RawClient.connect(socket)
                        defer { client.close() }
                        try await client.send(#"{"hello":{"protocol":1,"role":"script","client":"flood-\#(number)","name":"flood"}}"#)
                        _ = try await client.receive()
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
