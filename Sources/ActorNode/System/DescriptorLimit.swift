import Glibc

/// The process's limit on open files (`ulimit -n`), and how much of it a core keeps in reserve.
///
/// A process that runs out of descriptors does not only fail its own `open` and `accept`:
/// the Swift runtime's thread pool (libdispatch) checks on its threads once a second by opening
/// files under `/proc`, and ends the process when it cannot. So a core never lets its clients
/// take the last descriptors (as Redis keeps 32 for itself below `maxclients`), and refuses to
/// start with a limit too low to keep that reserve.
package enum DescriptorLimit {
    /// Descriptors a core keeps free for its journal, its snapshots, its log and the runtime,
    /// whatever its clients do.
    package static let reserve = 16
    /// The lowest limit a core starts with: what it holds of its own (about a dozen), its
    /// reserve, and room for a few clients.
    package static let minimumForCore = 32

    /// The soft limit on open files, as `ulimit -n` shows it.
    package static var current: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return Int.max }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many descriptors the process has open now (nil if `/proc/self/fd` cannot be read).
    package static func openCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = entry.pointee.d_name.0
            // "." and "..", and the descriptor of the listing itself, are not the process's.
            if name != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return max(0, count - 1)
    }

    /// How many clients a core may hold at once: the limit, less what it has open (counted
    /// once everything of its own is open) and its reserve.
    package static func clientCapacity() -> Int {
        let limit = current
        guard limit != Int.max else { return Int.max }
        return max(0, limit - (openCount() ?? 16) - reserve)
    }
}
