import ActorNode
import FoundationEssentials
import Glibc
import Wire

/// What a launcher publishes about itself beside the socket (`SOCKET.launcher`), for
/// `cama-launch status`: who supervises, which core runs since when, how many restarts.
struct LauncherStatus: Codable, Sendable {
    var launcher: Int32
    var startedAt: Double
    var core: Int32?
    var coreStartedAt: Double?
    var restarts: Int
    var stateDirectory: String
    var log: String

    static func path(for socket: String) -> String { socket + ".launcher" }

    func write(for socket: String) {
        guard let bytes = try? WireJSON.encode(self) else { return }
        let path = Self.path(for: socket)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        try? FileIO.writeAll(fd, bytes, what: temporary)
        close(fd)
        rename(temporary, path)
    }

    static func read(for socket: String) -> LauncherStatus? {
        guard let bytes = try? FileIO.read(path(for: socket)) else { return nil }
        return try? WireJSON.decode(LauncherStatus.self, from: bytes)
    }

    static func remove(for socket: String) {
        unlink(path(for: socket))
    }
}
