import ActorNode
import Glibc
import Testing
import Wire

/// `shell-client bridge`, what a client on another machine runs through ssh: its stdin and
/// stdout carry the protocol to and from the core's socket, byte for byte, both ways at once.
@Suite("The stdio bridge")
struct BridgeTests {
    /// A bridge whose stdin and stdout are one end of a socket pair, and a client on the other,
    /// which has read the bridge's greeting line (`cama-bridge 1`): the protocol starts after it.
    private func startBridge(_ sandbox: Sandbox, _ extra: [String] = []) async throws -> (ChildProcess, RawClient, errors: String) {
        let (bridge, fd, errors) = try await startBridgeDescriptor(sandbox, extra)
        // The connection's reads and writes wait on the event loop, never in the system call.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return (bridge, RawClient(connection: SocketConnection(fd: fd)), errors)
    }

    /// The same, the client's end left a plain blocking descriptor (the caller closes it).
    private func startBridgeDescriptor(_ sandbox: Sandbox, _ extra: [String] = []) async throws -> (ChildProcess, Int32, errors: String) {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { throw SystemError("socketpair") }
        let errors = sandbox.directory + "/bridge.err"
        let stderr = open(errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(pair[1])
            close(stderr)
        }
        let bridge = try ChildProcess.spawn(Binary.shellClient.path, arguments: ["bridge", "--socket", sandbox.socket] + extra,
                                            standardInput: pair[1], standardOutput: pair[1], standardError: stderr)
        // The greeting, a byte at a time so that nothing after it is taken: blocking reads, on a
        // thread of their own (never Swift's pool).
        let fd = pair[0]
        let line = await SystemThread.run(name: "greeting") { () -> [UInt8] in
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while line.last != UInt8(ascii: "\n"), line.count < 64, read(fd, &byte, 1) == 1 { line.append(byte) }
            return line
        }
        guard line == BridgeGreeting.line else {
            bridge.send(SIGKILL)
            close(fd)
            throw SystemError("the bridge's greeting was \(String(decoding: line, as: UTF8.self).debugDescription)", code: EPROTO)
        }
        return (bridge, fd, errors)
    }

    @Test("a script through the bridge: welcome, an action, its ack; its input ends, the core's last words come through, the bridge exits 0", .timeLimit(.minutes(1)))
    func scriptThroughTheBridge() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }
        let (bridge, client, _) = try await startBridge(sandbox)
        defer { bridge.send(SIGKILL) }
        try await client.hello(role: "script")
        #expect(try await client.receive()?.messageType == "welcome")
        try await client.send(#"{"action":{"client":"raw-bridge","seq":1,"action":{"add":{"text":"over the bridge"}}}}"#)
        #expect(try await client.receive()?["ack", "revision"]?.intValue == 1)
        // Actions written before their input ends are all answered, then the core closes.
        try await client.send(#"{"action":{"client":"raw-bridge","seq":2,"action":{"add":{"text":"last"}}}}"#)
        shutdown(client.connection.fd, Int32(SHUT_WR))
        let rest = try await client.receiveAll()
        #expect(rest.compactMap { $0["ack", "seq"]?.intValue } == [2], "\(rest)")
        #expect(await bridge.waitForExit(timeout: .seconds(10)) == .exited(0))
        let state = try await sandbox.client("state").output
        #expect(state.hasPrefix("revision 2: 2 items") && state.contains("1 [ ] over the bridge") && state.contains("2 [ ] last"), "\(state)")
    }

    @Test("3000 actions written before any answer is read: every one is answered (neither way waits on the other)", .timeLimit(.minutes(1)))
    func noDeadlock() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }
        let (bridge, fd, _) = try await startBridgeDescriptor(sandbox)
        defer {
            bridge.send(SIGKILL)
            close(fd)
        }
        var bytes = try Frame.encode(Array(#"{"hello":{"protocol":1,"role":"shell","client":"raw-flood","name":"flood"}}"#.utf8))
        for seq in 1 ... 3000 {
            bytes += try Frame.encode(Array(#"{"action":{"client":"raw-flood","seq":\#(seq),"action":{"counter":"increment"}}}"#.utf8))
        }
        // Both ways with plain blocking calls on threads of their own: what is measured is the
        // bridge, not how soon this process's tasks are scheduled among the whole suite's.
        let payload = bytes
        let writing = Task { await SystemThread.run(name: "flood-out") { Self.writeAll(fd, payload) } }
        let acks = await SystemThread.run(name: "flood-in") { Self.countAcks(fd, wanted: 3000, before: .now + .seconds(45)) }
        #expect(await writing.value, "every byte was written")
        #expect(acks == 3000)
        #expect(try await sandbox.client("state", "--json").output.contains(#""counter":{"value":3000}"#))
    }

    /// Writes all of `bytes` to a blocking descriptor; false if it broke first.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads frames from a blocking descriptor until `wanted` acks came, the stream ended or
    /// `deadline` passed; how many acks came.
    private static func countAcks(_ fd: Int32, wanted: Int, before deadline: MonotonicClock.Instant) -> Int {
        var decoder = FrameDecoder(maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var acks = 0
        while acks < wanted {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, PollTimeout.milliseconds(until: deadline)) > 0 else { return acks }
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return acks }
            decoder.append(buffer[..<count])
            while let frame = try? decoder.nextFrame() {
                if frame.starts(with: Array(#"{"ack""#.utf8)) { acks += 1 }
            }
        }
        return acks
    }

    @Test("SIGHUP, as a lost ssh connection sends, ends the bridge at once", .timeLimit(.minutes(1)))
    func hangUp() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }
        let (bridge, client, _) = try await startBridge(sandbox)
        defer { bridge.send(SIGKILL) }
        try await client.hello(role: "watcher")
        #expect(try await client.receive()?.messageType == "welcome")
        bridge.send(SIGHUP)
        #expect(await bridge.waitForExit(timeout: .seconds(10)) == .signaled(SIGHUP))
        try await eventually("the core counts no watcher") { try await attachedShells(sandbox.socket) == 0 }
    }

    @Test("no core there: one line and exit 3, as every command says it", .timeLimit(.minutes(1)))
    func noCore() async throws {
        let sandbox = try Sandbox()
        let result = try await sandbox.client("bridge")
        #expect(result.status == 3)
        #expect(result.error.hasPrefix("shell-client: no core is serving \(sandbox.socket)"), "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test("--read-only: the state and its changes come through; an action gets a reject read_only and never reaches the core; a frame that is no message ends it with bad_frame", .timeLimit(.minutes(1)))
    func readOnly() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore()
        defer { core.process.send(SIGTERM) }
        #expect(try await sandbox.client("send", "add", "before").status == 0)
        let (bridge, client, _) = try await startBridge(sandbox, ["--read-only"])
        defer { bridge.send(SIGKILL) }
        try await client.hello(role: "shell")
        let welcome = try await client.receive()
        #expect(welcome?["welcome", "revision"]?.intValue == 1)
        // Two actions in one write: each is refused by the bridge, in order, with its seq.
        try await client.sendBytes(
            try Frame.encode(Array(#"{"action":{"client":"raw-ro","seq":1,"action":{"add":{"text":"sneaky"}}}}"#.utf8))
                + Frame.encode(Array(#"{"action":{"client":"raw-ro","seq":2,"action":{"counter":"increment"}}}"#.utf8)))
        for seq in 1 ... 2 {
            let answer = try await client.receive()
            #expect(answer?["reject", "code"]?.stringValue == "read_only", "\(String(describing: answer))")
            #expect(answer?["reject", "seq"]?.intValue == Int64(seq))
        }
        // A change made elsewhere comes through as usual, whole frames between the rejects.
        #expect(try await sandbox.client("send", "add", "after").status == 0)
        let rendition = try await client.receive()
        #expect(rendition?["rendition", "revision"]?.intValue == 2, "\(String(describing: rendition))")
        let state = try await sandbox.client("state").output
        #expect(state.hasPrefix("revision 2: 2 items") && !state.contains("sneaky"), "\(state)")
        // Not a message: the bridge answers as the core would, and ends.
        try await client.send(#"{"sing":{}}"#)
        let error = try await client.receive()
        #expect(error?["error", "code"]?.stringValue == "bad_frame", "\(String(describing: error))")
        #expect(await bridge.waitForExit(timeout: .seconds(10)) == .exited(0))
    }
}
