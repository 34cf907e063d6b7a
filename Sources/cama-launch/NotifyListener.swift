import ActorNode
import Glibc
import Synchronization

/// The launcher's end of the readiness protocol: a datagram socket whose name cores find in
/// `NOTIFY_SOCKET`, on which they send `READY=1` (with `MAINPID=`) once they serve. A thread
/// receives the messages and hands them over as dictionaries.
final class NotifyListener: Sendable {
    /// What to put in `NOTIFY_SOCKET`: a path, or an abstract name written "@…".
    let address: String
    let messages = Chan<[String: String]>()
    private let fd: Int32
    private let path: String?

    /// Binds next to `socketPath` (in its private directory), or to an abstract name when that
    /// path would be too long.
    init(besides socketPath: String) throws(SystemError) {
        Self.removeLeftovers(in: PathName.directory(of: socketPath))
        let candidate = PathName.directory(of: socketPath) + "/.notify-\(getpid())"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(candidate.utf8)
        let usesPath = bytes.count < MemoryLayout.size(ofValue: address.sun_path)
        if usesPath {
            unlink(candidate)
        } else {
            bytes = [0] + Array("cama-notify-\(getpid())".utf8)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (usesPath ? 1 : 0))
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        umask(previousMask)
        guard bound == 0 else {
            let error = SystemError("bind \(candidate)")
            close(fd)
            throw error
        }
        self.fd = fd
        path = usesPath ? candidate : nil
        self.address = usesPath ? candidate : "@cama-notify-\(getpid())"
        SystemThread.detach(name: "cama-notify") { [self] in run() }
    }

    /// Removes the `.notify-PID` files of launchers that are gone (killed before they could
    /// remove their own).
    private static func removeLeftovers(in directory: String) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        var leftovers: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(".notify-"), let pid = pid_t(name.dropFirst(".notify-".count)) else { continue }
            if !isRunning(pid) { leftovers.append(directory + "/" + name) }
        }
        for path in leftovers { unlink(path) }
    }

    /// Whether `pid` is a process that still runs: not gone, and not a zombie waiting to be
    /// reaped (a killed detached launcher may stay one for a while).
    private static func isRunning(_ pid: pid_t) -> Bool {
        if kill(pid, 0) != 0, errno == ESRCH { return false }
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return true }
        // "pid (comm) S ...": the state follows the last ')'.
        let text = buffer.prefix(count)
        guard let nameEnd = text.lastIndex(of: UInt8(ascii: ")")), nameEnd + 2 < count else { return true }
        return text[nameEnd + 2] != UInt8(ascii: "Z")
    }

    /// Removes the socket's file.
    func remove() {
        if let path { unlink(path) }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            var fields: [String: String] = [:]
            for line in String(decoding: buffer[0 ..< count], as: UTF8.self).split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            messages.trySend(fields)
        }
    }
}
