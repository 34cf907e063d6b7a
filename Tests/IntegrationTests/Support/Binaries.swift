import Glibc

/// The real executables, built beside the test bundle by `swift build` / `swift test`.
enum Binary: String, CaseIterable {
    case coreDaemon = "core-daemon"
    case shellClient = "shell-client"
    case camaLaunch = "cama-launch"
    case camaBench = "cama-bench"
    case chatCore = "chat-core"
    case chatShell = "chat-shell"
    case pollCore = "poll-core"
    case pollShell = "poll-shell"
    /// A test fixture (Tests/Fixtures/TrapCore): a core whose reducer traps on purpose.
    case trapCore = "trap-core"
    /// A test fixture (Tests/Fixtures/DriftCore): a core whose patches do not fit its state.
    case driftCore = "drift-core"
    /// A test fixture (Tests/Fixtures/PlainShell): a shell with no full screen.
    case plainShell = "plain-shell"
    /// A test fixture (Tests/Fixtures/TrapShell): a full screen that traps on a key.
    case trapShell = "trap-shell"

    /// The build directory: the test bundle's own directory.
    static let directory: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = String(decoding: buffer[0 ..< max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var directory = executable
        // .../debug/camaPackageTests.xctest: the binaries are in .../debug.
        while let slash = directory.lastIndex(of: "/") {
            directory = String(directory[..<slash])
            if access(directory + "/core-daemon", X_OK) == 0 { return directory }
        }
        return "."
    }()

    var path: String { Self.directory + "/" + rawValue }
}
