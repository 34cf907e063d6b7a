import Glibc
import Testing
@testable import ActorNode
import Wire

/// Under `--fsync always` a journal segment is laid out ahead of its records with zeros, so
/// that a sync writes the records' pages and not the file's length too. The zeros are never
/// mistaken for records, for a torn write, or for damage, and they are cut off when the
/// segment is done.
@Suite("Journal reserve")
struct JournalReserveTests {
    private typealias Setup = JournalTests.Setup

    /// A journal holding `count` records, written and synced but not closed (as a crash leaves
    /// it).
    private func written(_ count: Int, policy: FsyncPolicy = .always, threshold: Int = 1 << 20) async throws -> Setup {
        let setup = try Setup(threshold: threshold, policy: policy)
        for value in 1 ... count {
            await setup.send(.got(value))
            if value % 20 == 0 { await setup.settle() }
        }
        await setup.flush()
        return setup
    }

    private func write(_ bytes: [UInt8], to path: String, at offset: Int) throws {
        let fd = open(path, O_WRONLY)
        defer { close(fd) }
        try FileIO.writeAll(fd, bytes, at: offset, what: path)
    }

    @Test("under fsync always zeros follow the records; recovery ends the records there and calls nothing torn")
    func laidOutAhead() async throws {
        let setup = try await written(5)
        let path = setup.files.journals().last!.path
        #expect(FileIO.size(path) == Segment.reserveStep)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.map(\.revision) == Array(1 ... 5))
        #expect(recovered.tornTail == nil)
        let end = try #require(recovered.reserve?.offset)
        #expect(end > 0 && end < Segment.reserveStep)
        #expect(recovered.reserve?.bytes == Segment.reserveStep - end)
        #expect(recovered.journals.last?.bytes == end, "--check counts the records' bytes, not the zeros")
        await setup.close()
    }

    @Test("closing the journal cuts the zeros off")
    func closeCutsTheZeros() async throws {
        let setup = try await written(5)
        let end = try #require(try Recovery.load(setup.files, state: Int.self, action: Probe.self).reserve?.offset)
        await setup.close()
        #expect(FileIO.size(setup.files.journals().last!.path) == end)
        #expect(try Recovery.load(setup.files, state: Int.self, action: Probe.self).reserve == nil)
    }

    @Test("a finished segment has its zeros cut off when the next one starts")
    func rotationCutsTheZeros() async throws {
        let setup = try await written(60, threshold: 2_000)
        // Closed first, so that no snapshot is being written (and no old segment removed)
        // while the files are looked at; closing cuts the last segment's zeros, not the others'.
        await setup.close()
        let segments = setup.files.journals()
        #expect(segments.count >= 2)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.lastRevision == 60)
        #expect(recovered.journals.map(\.file) == segments.map(\.name))
        for (segment, journal) in zip(segments.dropLast(), recovered.journals) {
            #expect(FileIO.size(segment.path) == journal.bytes, "\(segment.name) still holds zeros")
        }
    }

    @Test("batch and never write no zeros ahead", arguments: [FsyncPolicy.batch, .never])
    func otherPolicies(policy: FsyncPolicy) async throws {
        let setup = try await written(5, policy: policy)
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.reserve == nil)
        #expect(FileIO.size(setup.files.journals().last!.path) == recovered.journals.last?.bytes)
        await setup.close()
    }

    /// A journal of three records, left open as a crash leaves it, with a fourth record,
    /// changed by `damage`, written where the zeros begin; where it starts, and its bytes.
    private func fourthRecordInTheZeros(_ damage: (inout [UInt8]) -> Void) async throws -> (setup: Setup, end: Int, record: [UInt8]) {
        let setup = try await written(3)
        let path = setup.files.journals().last!.path
        let end = try #require(try Recovery.load(setup.files, state: Int.self, action: Probe.self).reserve?.offset)
        var record = DurableRecord.encode(Array(#"{"action":{"got":{"_0":4}},"at":0,"revision":4}"#.utf8))
        damage(&record)
        try write(record, to: path, at: end)
        return (setup, end, record)
    }

    @Test("a record torn inside the zeros (its end never written) is a torn tail, dropped with the zeros")
    func tornInsideTheZeros() async throws {
        let (setup, end, record) = try await fourthRecordInTheZeros { record in
            for index in record.count - 10 ..< record.count { record[index] = 0 }
        }
        let recovered = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
        #expect(recovered.entries.count == 3)
        #expect(recovered.tornTail?.offset == end)
        #expect(recovered.tornTail?.bytes == record.count)
        #expect(recovered.reserve?.offset == end + record.count)
        await setup.close()
    }

    @Test("a complete record with a bad checksum before the zeros is damage, not a torn write")
    func damageBeforeTheZeros() async throws {
        let (setup, end, _) = try await fourthRecordInTheZeros { $0[$0.count - 3] ^= 0x01 }
        do {
            _ = try Recovery.load(setup.files, state: Int.self, action: Probe.self)
            Issue.record("a damaged, possibly acknowledged record was dropped silently")
        } catch {
            #expect(error.offset == end)
            #expect(error.reason == "checksum mismatch, in the last record, which is complete and may have been acknowledged")
        }
        await setup.close()
    }
}
