import ActorNode
import Glibc
import Testing
import Wire

private let hasPython = access("/usr/bin/python3", X_OK) == 0

/// A script that only sends actions or asks queries says `"snapshot":false` in its hello, and
/// its welcome then carries no state: what a `send` costs the core and itself does not grow
/// with the state (at 100,000 items a welcome is 5 MB of JSON to write, send and parse). A
/// shell or a watcher follows the state from the welcome, and may not ask for none.
@Suite("Welcomes without the state")
struct WelcomeWithoutStateTests {
    @Test("a script's hello without a snapshot gets a welcome without the state, then its acks; a shell's is refused", .timeLimit(.minutes(1)))
    func coreSide() async throws {
        let sandbox = try Sandbox()
        let core = try await sandbox.startCore(["--state-dir", sandbox.stateDirectory])
        defer { core.process.send(SIGTERM) }
        for number in 1 ... 3 { #expect(try await sandbox.client("send", "add", "item \(number)").status == 0) }

        let script = try RawClient.connect(sandbox.socket)
        defer { script.close() }
        try await script.send(#"{"hello":{"protocol":1,"role":"script","client":"no-state-\#(getpid())","name":"test","snapshot":false}}"#)
        let welcome = try #require(try await script.receive())
        #expect(welcome.messageType == "welcome", "\(welcome)")
        #expect(welcome["welcome", "revision"]?.intValue == 3, "\(welcome)")
        #expect(welcome["welcome"]?.objectValue?.keys.sorted() == ["core", "pid", "protocol", "revision", "shells"], "\(welcome)")
        try await script.send(#"{"action":{"client":"no-state-\#(getpid())","seq":1,"action":{"add":{"text":"four"}}}}"#)
        let ack = try #require(try await script.receive())
        #expect(ack["ack", "revision"]?.intValue == 4, "\(ack)")

        // Asking for the state, or not saying, gets it as before.
        let asking = try RawClient.connect(sandbox.socket)
        defer { asking.close() }
        try await asking.hello(role: "script")
        let full = try #require(try await asking.receive())
        #expect(full["welcome", "snapshot", "todo", "nextId"]?.intValue == 5, "\(full)")

        for role in ["shell", "watcher"] {
            let follower = try RawClient.connect(sandbox.socket)
            defer { follower.close() }
            try await follower.send(#"{"hello":{"protocol":1,"role":"\#(role)","client":"no-state-\#(role)","name":"test","snapshot":false}}"#)
            let messages = try await follower.receiveAll()
            #expect(messages.count == 1, "\(messages)")
            #expect(messages.first?["error", "code"] == .string("bad_frame"), "\(messages)")
            #expect(
                messages.first?["error", "message"]?.stringValue
                    == "a frame is not a valid message: at hello.snapshot: a \(role) follows the state from the welcome's snapshot, so only a script can say false",
                "\(messages)")
        }
    }

    @Test("send says hello without asking for the state, and takes a welcome without it; state asks for it", .enabled(if: hasPython, "needs /usr/bin/python3 for the recording core"), .timeLimit(.minutes(1)))
    func clientSide() async throws {
        let sandbox = try Sandbox()
        let recorder = try sandbox.start(executable: "/usr/bin/python3", name: "recording-core", ["-u", "-c", RecordingCore.script, sandbox.socket])
        defer { recorder.process.send(SIGKILL) }
        await eventually("the recording core listens") { recorder.output.contains("listening") }

        let sent = try await sandbox.client("send", "add", "x")
        #expect(sent.status == 0, "\(sent)")
        let state = try await sandbox.client("state", "--json")
        #expect(state.status == 0, "\(state)")
        #expect(state.output == #"{"counter":{"value":0},"revision":7,"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[],"nextId":1}}"# + "\n", "\(state)")

        // The hellos as the core read them, in order.
        let hellos = recorder.output.split(separator: "\n").filter { $0.hasPrefix("hello ") }.map { $0.dropFirst("hello ".count) }
        #expect(hellos.count == 2, "\(recorder.output)")
        let send = try WireJSON.decode(JSONValue.self, from: Array((hellos.first ?? "").utf8))
        #expect(send["hello", "name"]?.stringValue == "shell-client send", "\(send)")
        #expect(send["hello", "snapshot"] == .bool(false), "\(send)")
        let asked = try WireJSON.decode(JSONValue.self, from: Array((hellos.last ?? "").utf8))
        #expect(asked["hello", "name"]?.stringValue == "shell-client state", "\(asked)")
        #expect(asked["hello", "snapshot"] == nil, "\(asked)")
    }
}

/// A core in a few lines, for the client's side: it prints each hello it reads, welcomes with
/// the state only when the hello did not say `"snapshot":false`, acks every action at
/// revision 8, and closes after a bye.
private enum RecordingCore {
    static let script = #"""
import os, socket, struct, sys, json
path = sys.argv[1]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(16)
print("listening", flush=True)
state = {"counter": {"value": 0}, "timer": {"deadline": None, "item": None, "remaining": 0, "running": False},
         "todo": {"items": [], "nextId": 1}}
def frame(message):
    data = json.dumps(message, separators=(",", ":"), sort_keys=True).encode()
    return struct.pack(">I", len(data)) + data
def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        more = connection.recv(count - len(data))
        if not more:
            return None
        data += more
    return data
while True:
    connection, _ = server.accept()
    connection.settimeout(5)
    try:
        while True:
            header = read_exactly(connection, 4)
            if header is None:
                break
            payload = read_exactly(connection, struct.unpack(">I", header)[0])
            message = json.loads(payload)
            if "hello" in message:
                print("hello " + payload.decode(), flush=True)
                welcome = {"protocol": 1, "core": "recording", "pid": os.getpid(), "shells": 0, "revision": 7}
                if message["hello"].get("snapshot", True):
                    welcome["snapshot"] = state
                connection.sendall(frame({"welcome": welcome}))
            elif "action" in message:
                connection.sendall(frame({"ack": {"revision": 8, "seq": message["action"]["seq"]}}))
            elif "bye" in message:
                break
    except Exception as error:
        print("failed: %r" % error, flush=True)
    connection.close()
"""#
}
