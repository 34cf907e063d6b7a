import ActorNode
import Glibc

/// The app a launcher runs: its core and its shell (by default `core-daemon` and
/// `shell-client`, found beside cama-launch's own executable), and where the core keeps its
/// socket and state, as the core itself says (`CORE --print-paths`).
struct LaunchTarget: Sendable {
    let core: String
    let shell: String
    let socket: String
    let stateDirectory: String

    /// Finds the executables and asks the core for its paths.
    static func resolve(_ options: LaunchOptions) async throws(CommandFailure) -> LaunchTarget {
        let core = try CompanionExecutables.locate(options.core ?? "core-daemon", option: "--core")
        let shell = try CompanionExecutables.locate(options.shell ?? "shell-client", option: "--shell")
        let (socket, stateDirectory) = try await paths(of: core, options: options)
        do {
            _ = try UnixSocket.address(socket)
        } catch {
            throw CommandFailure.usage(error.description, program: LaunchOptions.program)
        }
        return LaunchTarget(core: core, shell: shell, socket: socket, stateDirectory: stateDirectory)
    }

    /// `CORE --print-paths [--socket S] [--state-dir D]`: the socket and state directory the
    /// core would use, resolved with its own naming and this environment.
    private static func paths(of core: String, options: LaunchOptions) async throws(CommandFailure) -> (String, String) {
        var arguments = ["--print-paths"]
        if let socket = options.socket { arguments += ["--socket", socket] }
        if let stateDirectory = options.stateDirectory { arguments += ["--state-dir", stateDirectory] }
        guard let asked = await ProcessOutput.capture(core, arguments: arguments, timeout: .seconds(30)) else {
            throw CommandFailure(.rejected, "cannot ask \(core) for its paths: it could not start, or did not answer within 30 s")
        }
        let lines = String(decoding: asked.output, as: UTF8.self).split(separator: "\n").map(String.init)
        guard asked.termination.isSuccess, lines.count == 2 else {
            throw CommandFailure(.rejected, "\(core) is not a CAMA core: '\(PathName.fileName(of: core)) --print-paths' \(asked.termination.isSuccess ? "printed no paths" : asked.termination.description); choose a core built with CoreHost (--core)")
        }
        return (lines[0], lines[1])
    }
}

/// Finds executables the way a launcher does: a name without a slash beside cama-launch's own
/// executable (where a build or an installation puts them), then in `$PATH`; a path as given.
enum CompanionExecutables {
    /// The absolute path of the running executable.
    static var current: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0 ..< length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of an executable, checked to be there.
    /// - Parameters:
    ///   - name: a name (`core-daemon`) or a path (`./chat-core`).
    ///   - option: the option that names it, for the message.
    static func locate(_ name: String, option: String) throws(CommandFailure) -> String {
        if name.contains("/") {
            guard access(name, X_OK) == 0 else {
                throw CommandFailure(.rejected, "\(name) (\(option)) is not an executable file")
            }
            return name
        }
        let beside = PathName.join(PathName.directory(of: current), name)
        if access(beside, X_OK) == 0 { return beside }
        if let found = ExecutablePath.search(name) { return found }
        throw CommandFailure(.rejected, "\(name) was not found beside cama-launch (looked for \(beside)) or in $PATH; build it with 'swift build', install it beside cama-launch, or give its path with \(option)")
    }
}
