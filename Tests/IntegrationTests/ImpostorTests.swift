import ActorNode
import FoundationEssentials
import Glibc
import Testing
import Wire

/// Whether this test process may act as another user (to play a hostile local user).
private let canPlayAnotherUser = getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0

/// The user a hostile local user is played by.
private let hostileUser: uid_t = 65534

/// Clients check who serves the socket before they say anything: a socket whose directory is not
/// the user's own private directory, or whose server runs as another user, is refused with one
/// line and exit status 3, and nothing is sent to it. Text from the core never reaches the
/// terminal raw.
@Suite("Impostors and hostile text")
struct ImpostorTests {
    @Test("a socket directory that belongs to another user is refused by every client", .enabled(if: canPlayAnotherUser, "needs root, setpriv and /usr/bin/python3 to play another user"), .timeLimit(.minutes(1)))
    func foreignDirectory() async throws {
        let sandbox = try Sandbox()
        let directory = sandbox.directory + "/theirs"
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chown(directory, hostileUser, hostileUser) == 0)
        let socket = directory + "/core.sock"
        for arguments in [["state"], ["send", "add", "x"], ["watch", "--count", "1"], ["attach"]] {
            let result = try await sandbox.run(.shellClient, arguments + ["--socket", socket])
            #expect(result.status == 3, "\(arguments): \(result)")
            #expect(result.error == "shell-client: refusing to connect to \(socket): its directory \(directory) belongs to user \(hostileUser), not to you (0), so anyone could be answering there; a core of yours never serves there; remove it or choose another --socket\n", "\(arguments)")
        }
    }

    @Test("a socket directory open to other users is refused", .timeLimit(.minutes(1)))
    func openDirectory() async throws {
        let sandbox = try Sandbox()
        let directory = sandbox.directory + "/open"
        #expect(mkdir(directory, 0o755) == 0)
        #expect(chmod(directory, 0o755) == 0)
        let result = try await sandbox.run(.shellClient, ["state", "--socket", directory + "/core.sock"])
        #expect(result.status == 3, "\(result)")
        #expect(result.error.contains("its directory \(directory) is open to other users (mode 755)"), "\(result)")
        #expect(result.error.split(separator: "\n").count == 1)
    }

    @Test("a core served by another user is refused by every client and the launcher; it receives nothing", .enabled(if: canPlayAnotherUser, "needs root, setpriv and /usr/bin/python3 to play another user"), .timeLimit(.minutes(1)))
    func foreignServer() async throws {
        let sandbox = try Sandbox()
        // The hostile user's own directory, and its fake core there.
        var template = Array("/tmp/cama-hostile-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw SystemError("mkdtemp") }
        let theirs = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: theirs) }
        #expect(chown(theirs, hostileUser, hostileUser) == 0)
        let fake = try sandbox.start(
            executable: "/usr/bin/setpriv", name: "fake-core",
            ["--reuid=\(hostileUser)", "--regid=\(hostileUser)", "--clear-groups", "/usr/bin/python3", "-u", "-c", FakeCore.script, theirs + "/core.sock"])
        defer { fake.process.send(SIGKILL) }
        await eventually("the fake core listens") { fake.output.contains("listening") }
        // Our socket path leads there: a symbolic link in a directory that is ours and private.
        #expect(symlink(theirs + "/core.sock", sandbox.socket) == 0)

        for arguments in [["state"], ["state", "--json"], ["send", "add", "secret"], ["send", "--json", "{\"add\":{\"text\":\"secret\"}}"], ["watch", "--count", "1"], ["attach"]] {
            let result = try await sandbox.run(.shellClient, arguments + ["--socket", sandbox.socket])
            #expect(result.status == 3, "\(arguments): \(result)")
            #expect(result.error.hasPrefix("shell-client: refusing to talk to \(sandbox.socket): it is served by pid "), "\(arguments): \(result)")
            #expect(result.error.contains("of user \(hostileUser), not by you (0) or root, so it is not your core"), "\(arguments): \(result)")
            #expect(result.error.split(separator: "\n").count == 1, "\(arguments): \(result)")
            #expect(!result.output.contains("\u{1b}"), "\(arguments): \(result)")
        }
        // The interactive launcher finds a live socket and attaches its shell: refused the same way.
        let launcher = try await sandbox.run(.camaLaunch, ["--socket", sandbox.socket])
        #expect(launcher.status == 3, "\(launcher)")
        #expect(launcher.error.contains("refusing to talk to \(sandbox.socket)"), "\(launcher)")
        let status = try await sandbox.run(.camaLaunch, ["status", "--socket", sandbox.socket])
        #expect(status.status == 3, "\(status)")
        #expect(status.error.contains("refusing to talk to \(sandbox.socket)"), "\(status)")

        // Every client hung up without a byte: no hello, no action reached the impostor.
        func ends() -> [Substring] { fake.output.split(separator: "\n").filter { $0.hasPrefix("closed after") } }
        await eventually("the fake core saw every connection end") { ends().count >= 8 }
        #expect(ends().allSatisfy { $0 == "closed after 0 bytes" }, "\(fake.output)")
    }

    @Test("control characters from a core are shown escaped by state, watch and the line shell", .enabled(if: access("/usr/bin/python3", X_OK) == 0, "needs /usr/bin/python3 for a core that sends control characters"), .timeLimit(.minutes(1)))
    func hostileText() async throws {
        let sandbox = try Sandbox()
        // A core of our own user (so trusted) that sends what a real core refuses to store.
        let fake = try sandbox.start(executable: "/usr/bin/python3", name: "fake-core", ["-u", "-c", FakeCore.script, sandbox.socket])
        defer { fake.process.send(SIGKILL) }
        await eventually("the fake core listens") { fake.output.contains("listening") }
        let shown = "\\x1b[2J\\x1b]0;pwned\\x07\\nforged\\r\\x9b2J"
        let state = try await sandbox.client("state", "--timeout", "2")
        #expect(state.output.contains("1 [ ] \(shown)\n"), "\(state)")
        let watched = try await sandbox.client("watch", "--count", "1", "--timeout", "2")
        #expect(watched.output.contains(shown), "\(watched)")
        let attached = try await sandbox.client("attach", "--timeout", "2", input: "quit\n")
        #expect(attached.output.contains(shown), "\(attached)")
        let json = try await sandbox.client("state", "--json", "--timeout", "2")
        #expect(json.output.contains("\\u001b[2J"), "\(json)")
        for result in [state, watched, attached, json] {
            #expect(!result.output.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7f ... 0x9f).contains($0.value) }, "raw control characters in \(result)")
        }
    }
}

/// A fake core (run as the hostile user, or as a core of ours gone bad): it listens, answers any hello with a welcome whose
/// state is full of escape sequences, and prints how many bytes each connection sent it.
private enum FakeCore {
    static let script = #"""
import os, socket, struct, sys, json, threading
path = sys.argv[1]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
os.chmod(path, 0o777)
server.listen(16)
print("listening", flush=True)
evil = "\u001b[2J\u001b]0;pwned\u0007\nforged\r\u009b2J"
welcome = json.dumps({"welcome": {"protocol": 1, "core": "fake", "pid": os.getpid(), "shells": 0, "revision": 1,
    "snapshot": {"todo": {"items": [{"id": 1, "text": evil, "done": False, "pomodoros": 0}], "nextId": 2},
                 "counter": {"value": 0}, "timer": {"running": False}}}}).encode()
def serve(connection):
    total = 0
    connection.settimeout(3)
    try:
        while True:
            data = connection.recv(65536)
            if not data:
                break
            if total == 0:
                connection.sendall(struct.pack(">I", len(welcome)) + welcome)
            total += len(data)
    except Exception:
        pass
    print("closed after %d bytes" % total, flush=True)
    connection.close()
while True:
    connection, _ = server.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
"""#
}
