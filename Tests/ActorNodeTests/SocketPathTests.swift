import ActorNodeTesting
import FoundationEssentials
import Glibc
import Testing
@testable import ActorNode

@Suite("Socket path and directory")
struct SocketPathTests {
    @Test("resolution order: --socket, $CAMA_SOCKET, $XDG_RUNTIME_DIR, /tmp/cama-$UID")
    func resolutionOrder() {
        let naming = AppNaming("cama")
        let all = ["CAMA_SOCKET": "/env/core.sock", "XDG_RUNTIME_DIR": "/run/user/5"]
        #expect(naming.socketPath(option: "/opt/x.sock", environment: all) == "/opt/x.sock")
        #expect(naming.socketPath(option: nil, environment: all) == "/env/core.sock")
        #expect(naming.socketPath(option: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/5"]) == "/run/user/5/cama/core.sock")
        #expect(naming.socketPath(option: nil, environment: ["CAMA_SOCKET": "", "XDG_RUNTIME_DIR": ""]) == "/tmp/cama-\(getuid())/core.sock")
    }

    @Test("the state directory never falls back to the runtime directory")
    func stateDirectory() {
        let naming = AppNaming("cama")
        #expect(naming.stateDirectory(option: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/5", "HOME": "/home/a"]) == "/home/a/.local/state/cama")
        #expect(naming.stateDirectory(option: nil, environment: ["XDG_STATE_HOME": "/s", "CAMA_STATE_DIR": "/c"]) == "/c")
        #expect(naming.stateDirectory(option: nil, environment: ["XDG_STATE_HOME": "/s"]) == "/s/cama")
    }

    @Test("another app's naming: its own variables and directories")
    func otherApp() {
        let naming = AppNaming("chat-room")
        #expect(naming.socketVariable == "CHAT_ROOM_SOCKET")
        #expect(naming.socketPath(option: nil, environment: ["CAMA_SOCKET": "/cama.sock", "XDG_RUNTIME_DIR": "/run/user/5"]) == "/run/user/5/chat-room/core.sock")
        #expect(naming.stateDirectory(option: nil, environment: ["CHAT_ROOM_STATE_DIR": "/c"]) == "/c")
        #expect(naming.stateDirectory(option: nil, environment: ["HOME": "/home/a"]) == "/home/a/.local/state/chat-room")
    }

    @Test("a missing socket directory is created with mode 0700")
    func createsPrivateDirectory() throws {
        let base = try TemporaryDirectory()
        let socket = base.path + "/a/b/core.sock"
        try SocketPath.prepareDirectory(for: socket)
        var info = stat()
        #expect(stat(base.path + "/a/b", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test("a directory other users can enter is refused, with the fix in the message")
    func refusesOpenDirectory() throws {
        let base = try TemporaryDirectory()
        chmod(base.path, 0o755)
        do {
            try SocketPath.prepareDirectory(for: base.path + "/core.sock")
            Issue.record("accepted a 0755 directory")
        } catch {
            #expect(error.description.contains("open to other users (mode 0755)"))
            #expect(error.description.contains("chmod 700"))
        }
    }

    @Test("a path too long for sun_path is an error, never a truncation")
    func pathTooLong() {
        let path = "/tmp/" + String(repeating: "d", count: 120) + "/core.sock"
        #expect(throws: UnixSocket.PathTooLong.self) { try UnixSocket.address(path) }
        let fits = "/tmp/" + String(repeating: "d", count: UnixSocket.maximumPathLength - 5)
        #expect(fits.utf8.count == UnixSocket.maximumPathLength)
        #expect(throws: Never.self) { try UnixSocket.address(fits) }
    }

    @Test("the lock is exclusive, names its holder, and is gone after release")
    func lock() throws {
        let base = try TemporaryDirectory()
        let socket = base.path + "/core.sock"
        #expect(SocketLock.holder(of: socket) == nil)
        let lock = try SocketLock.acquire(for: socket)
        #expect(SocketLock.holder(of: socket) == getpid())
        #expect(throws: SocketLock.Failure.self) { try SocketLock.acquire(for: socket) }
        lock.release()
        #expect(SocketLock.holder(of: socket) == nil)
        #expect(access(SocketLock.lockPath(for: socket), F_OK) != 0)
    }
}
