import ActorNode
import Testing
import Wire

/// The `presence` message: every shell and watcher hears how many are attached whenever the
/// number changes; scripts neither count nor hear it.
@Suite("Presence")
struct PresenceTests {
    /// The next message that is a `presence`, skipping anything else; nil if none comes.
    private func nextPresence(_ client: RawClient) async throws -> Int64? {
        while let message = try await client.receive(timeout: .seconds(10)) {
            if let shells = message["presence", "shells"]?.intValue { return shells }
        }
        return nil
    }

    @Test("a shell hears others attach and detach; the newcomer's welcome counts it; scripts are not counted")
    func presenceFollowsAttachments() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()

        let first = try RawClient.connect(sandbox.socket)
        defer { first.close() }
        try await first.hello(role: "shell")
        #expect(try await first.receive()?["welcome", "shells"]?.intValue == 1)

        let second = try RawClient.connect(sandbox.socket)
        try await second.hello(role: "watcher")
        #expect(try await second.receive()?["welcome", "shells"]?.intValue == 2)
        #expect(try await nextPresence(first) == 2)

        // A script comes and goes: no one is told, and it is not counted.
        #expect(try await sandbox.client("send", "add", "from a script").status == 0)
        #expect(try await attachedShells(sandbox.socket) == 2)

        second.close()
        // The script's action reached `first` as a rendition; the next presence is the detach.
        #expect(try await nextPresence(first) == 1)
    }
}
