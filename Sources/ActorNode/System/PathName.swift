/// The parts of a file path, as strings: no file system access.
package enum PathName {
    /// The directory part of a path ("." for a bare file name, "/" for a file at the root).
    /// - Parameter path: a file's path.
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of a path.
    /// - Parameter path: a file's path.
    package static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `directory/name`, with one slash between them.
    /// - Parameters:
    ///   - directory: a directory's path.
    ///   - name: a name (or relative path) inside it.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
