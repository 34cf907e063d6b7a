import ActorNode
import Glibc

/// Finds `core-daemon` and `shell-client` beside cama-launch's own executable, as a build or
/// an installation puts them.
enum CompanionExecutables {
    /// The absolute path of the running executable.
    static var current: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of a companion executable, checked to be there.
    static func locate(_ name: String) throws(CommandFailure) -> String {
        let directory = SocketPath.directory(of: current)
        let path = directory + "/" + name
        guard access(path, X_OK) == 0 else {
            throw CommandFailure(.rejected, "\(name) was not found beside cama-launch (looked for \(path)); build it with 'swift build' or install the three binaries together")
        }
        return path
    }
}
