import Glibc

/// How much history a state directory keeps beyond what recovery needs (`--keep-history`):
/// the older snapshots and journal segments that rotation makes unnecessary, kept for
/// `history`, `state --at` and `diff` while they are younger than ``age`` and, newest first,
/// fit in ``bytes``. What recovery needs (the newest snapshot, the one before it as a
/// fallback, and the journal after that) is never counted or removed.
package struct HistoryRetention: Sendable, Equatable, CustomStringConvertible {
    /// The oldest a file kept for history may be (nil: no limit).
    package var age: Duration?
    /// The most bytes the files kept for history may take together (nil: no limit).
    package var bytes: Int?

    /// - Parameters:
    ///   - age: the oldest a kept file may be (nil: no limit).
    ///   - bytes: the most bytes kept (nil: no limit).
    package init(age: Duration?, bytes: Int?) {
        self.age = age
        self.bytes = bytes
    }

    /// The default: a week, within 256 MiB, whichever is reached first.
    package static let standard = HistoryRetention(age: .seconds(7 * 86_400), bytes: 256 << 20)

    /// Nothing beyond what recovery needs.
    package static let none = HistoryRetention(age: .zero, bytes: 0)

    /// Reads `7d`, `12h`, `30m`, `90s`, `2w` (an age), `256MB`, `1GB`, `500KB`, `1048576` (bytes;
    /// K, M, G are powers of 1024, with or without a B), both as `7d,256MB`, or `0` (nothing
    /// beyond what recovery needs). Nil for anything else.
    /// - Parameter text: the option's value.
    package init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard (1 ... 2).contains(parts.count) else { return nil }
        if parts.count == 1, parts[0] == "0" {
            self = .none
            return
        }
        var age: Duration?
        var bytes: Int?
        for part in parts {
            if let seconds = Self.seconds(part), age == nil {
                age = .seconds(seconds)
            } else if let count = Self.byteCount(part), bytes == nil {
                bytes = count
            } else {
                return nil
            }
        }
        self.init(age: age, bytes: bytes)
    }

    private static func seconds(_ text: Substring) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        guard let unit = text.last.flatMap({ units[$0] }), let number = Int64(text.dropLast()), number >= 0,
              number <= Int64.max / 1_000_000_000 / unit else { return nil }
        return number * unit
    }

    private static func byteCount(_ text: Substring) -> Int? {
        var digits = text.uppercased()[...]
        if digits.hasSuffix("IB") { digits = digits.dropLast(2) } else if digits.hasSuffix("B") { digits = digits.dropLast() }
        let scale: Int
        switch digits.last {
        case "K": scale = 1 << 10
        case "M": scale = 1 << 20
        case "G": scale = 1 << 30
        case "T": scale = 1 << 40
        default: scale = 1
        }
        if scale > 1 { digits = digits.dropLast() }
        guard let number = Int(digits), number >= 0 else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? nil : product
    }

    /// As `--help` and `--check` say it: `7d,256MiB`, `0`, `3h`.
    package var description: String {
        if self == .none { return "0" }
        var parts: [String] = []
        if let age {
            let seconds = age.components.seconds
            let unit = [(86_400, "d"), (3_600, "h"), (60, "m")].first { seconds > 0 && seconds % Int64($0.0) == 0 }
            parts.append(unit.map { "\(seconds / Int64($0.0))\($0.1)" } ?? "\(seconds)s")
        }
        if let bytes {
            let unit = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")].first { bytes > 0 && bytes % $0.0 == 0 }
            parts.append(unit.map { "\(bytes / $0.0)\($0.1)" } ?? "\(bytes)")
        }
        return parts.isEmpty ? "everything" : parts.joined(separator: ",")
    }

    /// Removes, oldest first, the files beyond what recovery needs that the policy does not
    /// keep. Never leaves a gap: once one file goes, every older one goes too.
    /// - Parameters:
    ///   - files: the state directory.
    ///   - now: the time, in seconds since 1970.
    /// - Returns: whether anything was removed (the caller syncs the directory).
    @discardableResult
    package func prune(_ files: StateFiles, now: Double) -> Bool {
        // Whole snapshots only: a damaged one is neither counted as recovery's nor removed.
        let snapshots = Recovery.wholeSnapshots(files)
        // The snapshot before the newest is recovery's fallback: only what it covers can go.
        guard snapshots.count >= 2 else { return false }
        let fallback = snapshots[1].revision
        var history: [StateFiles.Entry] = snapshots.dropFirst(2).map { $0 }
        // A segment is covered when the next one starts at or before fallback + 1.
        let segments = files.journals()
        let afterFallback = fallback < .max ? fallback + 1 : fallback
        for (index, segment) in segments.enumerated() where index + 1 < segments.count && segments[index + 1].revision <= afterFallback {
            history.append(segment)
        }
        // Newest first; snapshot R is newer than the segment that starts at R.
        func order(_ file: StateFiles.Entry) -> (UInt64, Int) { (file.revision, file.name.hasPrefix("snapshot") ? 1 : 0) }
        history.sort { order($0) > order($1) }
        var kept = 0
        var removing = false
        var removed = false
        for file in history {
            if !removing {
                let size = FileIO.size(file.path) ?? 0
                let young = age.map { limit in (FileIO.modified(file.path).map { now - $0 } ?? 0) <= limit.seconds } ?? true
                let fits = bytes.map { kept + size <= $0 } ?? true
                if young, fits {
                    kept += size
                    continue
                }
                removing = true
            }
            removed = unlink(file.path) == 0 || removed
        }
        return removed
    }
}
