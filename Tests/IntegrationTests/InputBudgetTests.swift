import ActorNode
import FoundationEssentials
import Glibc
import Synchronization
import Testing
import Wire

/// One budget for all the input the core holds: many clients pipelining large frames at once
/// are slowed down (or, the biggest, disconnected with `too_large`), the core's memory stays
/// bounded, and a client that behaves is served all along. Before hello, frames are small.
@Suite("Input budget")
struct InputBudgetTests {
    @Test("before hello a frame may be 64 KiB; after it, up to --max-frame", .timeLimit(.minutes(1)))
    func smallFramesBeforeHello() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        let early = try RawClient.connect(sandbox.socket)
        defer { early.close() }
        try await early.sendBytes([0, 1, 0x11, 0x70]) // announces 70,000 bytes
        let refused = try await early.receiveAll()
        #expect(refused.count == 1)
        #expect(refused.first?["error", "code"]?.stringValue == "frame_too_large")
        #expect(refused.first?["error", "message"]?.stringValue == "a frame announced 70000 bytes; the limit before hello is 65536")
        #expect(core.errorOutput.contains("frame of 70000 bytes refused before hello"))

        let later = try RawClient.connect(sandbox.socket)
        defer { later.close() }
        try await later.hello(role: "script")
        #expect(try await later.receive()?.messageType == "welcome")
        let text = String(repeating: "x", count: 70_000)
        try await later.send(#"{"action":{"client":"c","seq":1,"action":{"add":{"text":"\#(text)"}}}}"#)
        let answer = try await later.receive()
        #expect(answer?["reject", "code"]?.stringValue == "invalid_text", "\(String(describing: answer))")
    }

    @Test("40 clients pipelining 1 MB frames: memory stays bounded, a small client is served throughout", .timeLimit(.minutes(3)))
    func manyLargeSenders() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--max-buffered", String(8 << 20)])
        #expect(try await sandbox.client("send", "add", "before").status == 0)
        let baseline = try #require(memory(of: core.pid))

        let text = [UInt8](repeating: UInt8(ascii: "y"), count: 1_000_000)
        let senders = 40
        let framesEach = 10
        let bigDone = DoneCount()
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for number in 0 ..< senders {
                group.addTask {
                    var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"script","client":"big-\#(number)","name":"big"}}"#.utf8))
                    bytes.reserveCapacity(framesEach * (text.count + 100))
                    for seq in 1 ... framesEach {
                        let payload = Array(#"{"action":{"client":"big-\#(number)","seq":\#(seq),"action":{"add":{"text":""#.utf8) + text + Array(#""}}}}"#.utf8)
                        bytes += try Frame.encode(payload)
                    }
                    // Connected once its bytes are ready: building them can take longer than the
                    // core's 10 s for a hello on a loaded machine.
                    let client = try RawClient.connect(sandbox.socket)
                    defer {
                        client.close()
                        bigDone.count.add(1, ordering: .relaxed)
                    }
                    // A client the core disconnects finds its socket closed while still sending.
                    try? await client.sendBytes(bytes)
                    var rejects = 0
                    while let message = try await client.receive(timeout: .seconds(60)) {
                        switch message.messageType {
                        case "reject": rejects += 1
                        case "error": return message["error", "code"]?.stringValue ?? "error"
                        default: break
                        }
                        if rejects == framesEach { return "answered" }
                    }
                    return "closed after \(rejects) rejects"
                }
            }
            // Meanwhile, a client that behaves.
            for number in 1 ... 5 {
                // Served while the big senders are (each send within a turn or two of the
                // core's), though a turn that parses megabytes of JSON in a debug build, on a
                // machine busy with the rest of the suite, can take seconds: not the 10 s a
                // send waits by default.
                let small = try await sandbox.run(.shellClient, ["send", "add", "small \(number)", "--socket", sandbox.socket, "--timeout", "60"], timeout: .seconds(90))
                #expect(small.status == 0, "\(small)")
            }
            #expect(bigDone.count.load(ordering: .relaxed) < senders, "the small client was served only once the big ones were done")
            var outcomes: [String] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.allSatisfy { $0 == "answered" || $0 == "too_large" }, "\(outcomes)")
        #expect(core.process.termination == nil)
        let peak = try #require(memory(of: core.pid)).peak
        // 40 x 10 x 1 MB = 400 MB were offered; the core holds 32 MiB of it at most, plus what
        // decoding a few frames at once takes.
        #expect(peak < 120 << 20, "peak resident memory \(peak >> 20) MiB (baseline \(baseline.resident >> 20) MiB)")
        let state = try await sandbox.client("state")
        #expect(state.output.contains("small 5"), "\(state)")
        await eventually("the core's memory is back near its baseline") {
            guard let now = memory(of: core.pid) else { return false }
            return now.resident < baseline.resident + (64 << 20)
        }
    }

    @Test("clients that hold half-sent huge frames past the hard limit are disconnected with too_large, biggest first", .timeLimit(.minutes(2)))
    func hardLimit() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--max-buffered", String(2 << 20)])
        // Each announces a 16 MiB frame and sends 3 MiB of it: nothing the core could process.
        // Each connects just before its hello: on a loaded machine the six sends can take longer
        // than the core's 10 s for a hello, which is not what this test is about.
        var clients: [RawClient] = []
        defer { for client in clients { client.close() } }
        for number in 0 ..< 6 {
            let client = try RawClient.connect(sandbox.socket)
            clients.append(client)
            try await client.hello(role: "script")
            #expect(try await client.receive()?.messageType == "welcome")
            try? await client.sendBytes([1, 0, 0, 0] + [UInt8](repeating: 0x20, count: (3 << 20) + number))
        }
        // 18 MiB held, past the hard limit of 8 MiB: the biggest go until the rest fit.
        var cut = 0
        for client in clients {
            guard let message = try? await client.receive(timeout: .seconds(1)) else { continue }
            #expect(message["error", "code"]?.stringValue == "too_large", "\(message)")
            #expect(message["error", "message"]?.stringValue?.contains("all clients together passed the core's limit of 8388608 bytes") == true)
            cut += 1
        }
        #expect((4 ... 5).contains(cut), "\(cut) disconnected")
        #expect(core.errorOutput.contains("bytes of unprocessed input when all clients together passed 8388608 bytes"))
        #expect(try await sandbox.client("send", "add", "still served").status == 0)
    }
}

/// A process's resident memory now and at its peak, in bytes (from /proc).
func memory(of pid: pid_t) -> (resident: Int, peak: Int)? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    func field(_ name: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }
    guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
    return (resident, peak)
}

/// How many of a test's tasks are done, shared with them.
private final class DoneCount: Sendable {
    let count = Atomic<Int>(0)
}
