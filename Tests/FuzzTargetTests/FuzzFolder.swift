import Foundation

/// The repository's `Fuzz` folder, found from this file's path, and the inputs committed in it.
enum FuzzFolder {
    static let path: String = {
        var path = #filePath
        for _ in 0 ..< 3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Fuzz"
    }()

    /// The files of `Fuzz/<kind>/<target>/` (kind: `Corpus` or `Regressions`), sorted by name;
    /// none when the folder does not exist.
    static func inputs(_ kind: String, of target: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = "\(path)/\(kind)/\(target)"
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter { !$0.hasPrefix(".") }.map { name in
            (name: "\(kind)/\(target)/\(name)", bytes: Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)"))))
        }
    }
}
