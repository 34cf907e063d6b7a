import ActorNode
import Testing
import Wire

/// Random damage to valid traffic, from a fixed seed so a failure can be replayed: the core
/// must answer every connection with frames it can decode (or close it), and keep serving.
@Suite("Fuzzing the socket")
struct FuzzTests {
    @Test("mutated frames never crash the core or corrupt what it serves")
    func mutatedFrames() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--max-frame", "65536"])
        var random = SeededRandom(seed: 20_261_122)
        let valid: [String] = [
            #"{"hello":{"protocol":1,"role":"shell","client":"fuzz","name":"fuzz"}}"#,
            #"{"action":{"client":"fuzz","seq":1,"action":{"add":{"text":"fuzzed"}}}}"#,
            #"{"action":{"client":"fuzz","seq":2,"action":{"move":{"id":1,"position":1}}}}"#,
            #"{"action":{"client":"fuzz","seq":3,"action":"clear"}}"#,
            #"{"bye":{}}"#,
        ]
        for round in 0 ..< 150 {
            let client = try RawClient.connect(sandbox.socket)
            var bytes: [UInt8] = []
            if round % 2 == 0 { bytes += try Frame.encode(Array(valid[0].utf8)) }
            for _ in 0 ..< Int(random.next() % 4) + 1 {
                var payload = Array(valid[Int(random.next() % UInt64(valid.count))].utf8)
                for _ in 0 ..< Int(random.next() % 4) {
                    guard !payload.isEmpty else { break }
                    let index = Int(random.next() % UInt64(payload.count))
                    switch random.next() % 4 {
                    case 0: payload[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                    case 1: payload.remove(at: index)
                    case 2: payload.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                    default: payload = Array(payload[..<index])
                    }
                }
                var frame = try Frame.encode(payload)
                if random.next() % 8 == 0 {
                    // Lie about the length: shorter, longer, or absurd.
                    let lie = UInt32(truncatingIfNeeded: random.next() % 3 == 0 ? random.next() : UInt64(payload.count) + random.next() % 64)
                    frame.replaceSubrange(0 ..< 4, with: [UInt8(lie >> 24), UInt8(truncatingIfNeeded: lie >> 16), UInt8(truncatingIfNeeded: lie >> 8), UInt8(truncatingIfNeeded: lie)])
                }
                bytes += frame
            }
            try await client.sendBytes(bytes)
            // Whatever comes back must be well-formed messages; then either side may close.
            while let message = try? await client.receive(timeout: .milliseconds(200)) {
                #expect(message.messageType != nil, "round \(round): the core sent \(message)")
            }
            client.close()
        }
        #expect(core.process.termination == nil, "the core died: \(core.errorOutput.suffix(2000))")
        let state = try await sandbox.client("state", "--json")
        #expect(state.status == 0, "\(state)")
        #expect(try await sandbox.client("send", "add", "still serving").status == 0)
    }
}
