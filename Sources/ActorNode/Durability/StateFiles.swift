import Glibc

/// The files of a state directory: `journal-<R>.log` (records from revision R on, in order)
/// and `snapshot-<R>.snap` (the state at revision R). Revisions are written with 20 digits so
/// that names sort in revision order.
package struct StateFiles: Sendable {
    package let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    package struct Entry: Sendable, Equatable {
        package let name: String
        package let revision: UInt64
        package var path: String
    }

    package static func journalName(startingAt revision: UInt64) -> String {
        "journal-" + padded(revision) + ".log"
    }

    package static func snapshotName(at revision: UInt64) -> String {
        "snapshot-" + padded(revision) + ".snap"
    }

    /// Journal segments, oldest first.
    package func journals() -> [Entry] {
        entries(prefix: "journal-", suffix: ".log")
    }

    /// Snapshots, newest first.
    package func snapshots() -> [Entry] {
        entries(prefix: "snapshot-", suffix: ".snap").reversed()
    }

    /// Temporary files an interrupted snapshot left (`*.tmp`); never read, safe to remove.
    package func leftovers() -> [Entry] {
        entries(prefix: "snapshot-", suffix: ".snap.tmp")
    }

    /// Whether the directory exists.
    package var exists: Bool {
        var status = stat()
        return stat(directory, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    package func path(_ name: String) -> String {
        directory + "/" + name
    }

    private func entries(prefix: String, suffix: String) -> [Entry] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var found: [Entry] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), name.hasSuffix(suffix),
                  let revision = UInt64(name.dropFirst(prefix.count).dropLast(suffix.count)) else { continue }
            found.append(Entry(name: name, revision: revision, path: path(name)))
        }
        return found.sorted { $0.revision < $1.revision }
    }

    private static func padded(_ revision: UInt64) -> String {
        let digits = String(revision)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }
}
