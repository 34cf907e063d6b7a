import ActorNodeTesting
import Glibc
import Testing
@testable import ActorNode

/// `--keep-history`: what a state directory keeps beyond what recovery needs, read from the
/// command line and applied to real files, oldest first, never leaving a gap.
@Suite("History retention")
struct HistoryRetentionTests {
    @Test("ages, sizes, both, or 0", arguments: [
        ("7d", HistoryRetention(age: .seconds(604_800), bytes: nil), "7d"),
        ("12h", HistoryRetention(age: .seconds(43_200), bytes: nil), "12h"),
        ("90s", HistoryRetention(age: .seconds(90), bytes: nil), "90s"),
        ("2w", HistoryRetention(age: .seconds(1_209_600), bytes: nil), "14d"),
        ("256MB", HistoryRetention(age: nil, bytes: 256 << 20), "256MiB"),
        ("1gib", HistoryRetention(age: nil, bytes: 1 << 30), "1GiB"),
        ("1048577", HistoryRetention(age: nil, bytes: 1_048_577), "1048577"),
        ("7d,256MB", HistoryRetention.standard, "7d,256MiB"),
        ("1GB,30m", HistoryRetention(age: .seconds(1_800), bytes: 1 << 30), "30m,1GiB"),
        ("0", HistoryRetention.none, "0"),
    ])
    func parses(text: String, expected: HistoryRetention, shown: String) {
        #expect(HistoryRetention(text) == expected)
        #expect(expected.description == shown)
        #expect(HistoryRetention(expected.description) == expected)
    }

    @Test("anything else is refused", arguments: ["", "7", "d", "-1d", "7d,8d", "1MB,2MB", "7d,", "1.5GB", "99999999999999999999GB", "1x", "7d,1MB,2h"])
    func refuses(text: String) {
        if text == "7" { #expect(HistoryRetention(text) == HistoryRetention(age: nil, bytes: 7)); return }
        #expect(HistoryRetention(text) == nil, "\(text)")
    }

    /// A directory of segments and snapshots, each `size` bytes, written `age` seconds before
    /// `now` (oldest first): journal-1, snapshot-10, journal-11, snapshot-20, journal-21, ...
    private func directory(generations: Int, size: Int, ages: [Double], now: Double) throws -> (TemporaryDirectory, StateFiles) {
        let directory = try TemporaryDirectory()
        let files = StateFiles(directory: directory.path)
        var names = [StateFiles.journalName(startingAt: 1)]
        for generation in 1 ..< generations {
            names += [StateFiles.snapshotName(at: UInt64(generation * 10)), StateFiles.journalName(startingAt: UInt64(generation * 10 + 1))]
        }
        for (index, name) in names.enumerated() {
            try FileIO.writeAtomically(files.path(name), DurableRecord.encode([UInt8](repeating: 0x20, count: size - DurableRecord.headerLength)))
            let moment = now - ages[min(index, ages.count - 1)]
            var times = [timespec(tv_sec: Int(moment), tv_nsec: 0), timespec(tv_sec: Int(moment), tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, files.path(name), &times, 0) == 0)
        }
        return (directory, files)
    }

    private func names(_ files: StateFiles) -> [String] {
        (files.journals() + files.snapshots()).map(\.name).sorted()
    }

    @Test("0 keeps what recovery needs: the newest snapshot, the one before, and the journal after it")
    func keepsNone() throws {
        let (directory, files) = try directory(generations: 5, size: 100, ages: [0], now: 1_000_000)
        _ = directory
        #expect(HistoryRetention.none.prune(files, now: 1_000_000))
        #expect(names(files) == [StateFiles.journalName(startingAt: 31), StateFiles.journalName(startingAt: 41), StateFiles.snapshotName(at: 30), StateFiles.snapshotName(at: 40)].sorted())
        #expect(Recovery.oldestRevision(files) == 30)
    }

    @Test("a size keeps the newest history that fits, and everything older goes")
    func keepsBytes() throws {
        let (directory, files) = try directory(generations: 5, size: 100, ages: [0], now: 1_000_000)
        _ = directory
        // History, newest first: journal-21, snapshot-20, journal-11, snapshot-10, journal-1.
        #expect(HistoryRetention(age: nil, bytes: 250).prune(files, now: 1_000_000))
        #expect(files.journals().map(\.revision) == [21, 31, 41])
        #expect(files.snapshots().map(\.revision) == [40, 30, 20])
        #expect(Recovery.oldestRevision(files) == 20)
    }

    @Test("an age keeps the history younger than it; a younger file behind an older one goes too")
    func keepsAge() throws {
        // Ages, oldest file first: journal-1 3 days, snapshot-10 2 days, journal-11 1 hour (a
        // file rewritten late), the rest now.
        let (directory, files) = try directory(generations: 5, size: 100, ages: [259_200, 172_800, 3_600, 0], now: 1_000_000)
        _ = directory
        #expect(HistoryRetention(age: .seconds(86_400), bytes: nil).prune(files, now: 1_000_000))
        #expect(files.journals().map(\.revision) == [11, 21, 31, 41])
        #expect(files.snapshots().map(\.revision) == [40, 30, 20])
        // Nothing more to remove.
        #expect(!HistoryRetention(age: .seconds(86_400), bytes: nil).prune(files, now: 1_000_000))
    }

    @Test("the default keeps a young directory whole; the journal still starts at 1")
    func standardKeepsYoung() throws {
        let (directory, files) = try directory(generations: 5, size: 100, ages: [0], now: 1_000_000)
        _ = directory
        #expect(!HistoryRetention.standard.prune(files, now: 1_000_000))
        #expect(files.journals().count == 5 && files.snapshots().count == 4)
        #expect(Recovery.oldestRevision(files) == 0)
    }
}
