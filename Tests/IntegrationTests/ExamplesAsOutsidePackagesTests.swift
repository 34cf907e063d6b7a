import ActorNode
import Glibc
import Testing

/// The example apps use only what the framework makes `public`, as an app in a package of its
/// own must: each of their targets is type-checked by the compiler against the built modules
/// without this package's name, so that nothing `package` is visible to it.
@Suite("The examples build as outside packages would")
struct ExamplesAsOutsidePackagesTests {
    /// The Swift compiler beside the one that built the tests, or on the PATH.
    static let compiler: String? = {
        for directory in (ProcessEnvironment.current["PATH"] ?? "/usr/bin").split(separator: ":") where access("\(directory)/swiftc", X_OK) == 0 {
            return "\(directory)/swiftc"
        }
        return nil
    }()

    /// The repository, from this file's path (Tests/IntegrationTests/ in it).
    static let repository: String = {
        var path = #filePath
        for _ in 0 ..< 3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    @Test("every target of Examples/Chat and Examples/Poll type-checks with public API alone", .enabled(if: compiler != nil, "needs swiftc on the PATH"), .timeLimit(.minutes(2)),
          arguments: ["Chat/Contract", "Chat/Core", "Chat/Shell", "Poll/Contract", "Poll/Core", "Poll/Shell"])
    func typeChecks(target: String) async throws {
        let sandbox = try Sandbox()
        let directory = "\(Self.repository)/Examples/\(target)"
        let files = try FileList.swiftFiles(in: directory)
        #expect(!files.isEmpty, "no Swift files in \(directory)")
        let build = Binary.directory
        let arguments = ["-swift-version", "6", "-parse-as-library", "-typecheck", "-I", "\(build)/Modules",
                         "-Xcc", "-fmodule-map-file=\(build)/CSystemShims.build/module.modulemap",
                         "-I", "\(Self.repository)/Sources/CSystemShims/include"] + files
        let checked = try sandbox.start(executable: Self.compiler!, name: "swiftc", arguments)
        let termination = await checked.process.waitForExit(timeout: .seconds(110))
        #expect(termination == .exited(0), "\(target): \(checked.errorOutput)")
        #expect(!checked.errorOutput.contains("warning:"), "\(target): \(checked.errorOutput)")
    }
}

/// The Swift files of a directory, sorted.
enum FileList {
    static func swiftFiles(in directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw SystemError("opendir \(directory)") }
        defer { closedir(stream) }
        var files: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".swift") { files.append("\(directory)/\(name)") }
        }
        return files.sorted()
    }
}
