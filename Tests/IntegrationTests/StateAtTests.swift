import ActorNode
import Foundation
import Glibc
import Testing

/// `core-daemon --at REV`: the state at any revision the state directory holds, rebuilt from the
/// nearest snapshot and the journal, equal to what a client saw at that revision, across
/// SIGKILLs and snapshot rotations; a revision older than what is kept is one clear line.
@Suite("The state at a revision")
struct StateAtTests {
    @Test("a seeded run of actions across SIGKILLs and snapshots: --at R equals state --json seen at R, for every R held", .timeLimit(.minutes(2)))
    func everyRevision() async throws {
        let sandbox = try Sandbox()
        // Small segments, so that snapshots are taken and old revisions removed during the run.
        let coreOptions = ["--state-dir", sandbox.stateDirectory, "--snapshot-every", "1024"]
        var core = try await sandbox.startCore(coreOptions)
        var seen: [UInt64: String] = [:]
        var random = SeededRandom(seed: 24)
        var items = 0
        for step in 1 ... 45 {
            let words: [String]
            switch random.next() % 4 {
            case 0, 1:
                items += 1
                words = ["add", "item \(step)"]
            case 2 where items > 0:
                words = ["toggle", "\(Int(random.next() % UInt64(items)) + 1)"]
            default:
                words = ["counter", random.next() % 2 == 0 ? "increment" : "decrement"]
            }
            let sent = try await sandbox.client(["send"] + words)
            #expect(sent.status == 0, "\(words): \(sent)")
            let state = try await sandbox.client("state", "--json").output
            let revision = try #require(StateAtTests.revision(of: state))
            seen[revision] = state
            if step % 15 == 0 {
                core.process.send(SIGKILL)
                _ = await core.process.waitForExit()
                core = try await sandbox.startCore(coreOptions)
            }
        }
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()

        let check = try await sandbox.run(.coreDaemon, ["--check", "--state-dir", sandbox.stateDirectory])
        let held = try #require(check.output.split(separator: "\n").first { $0.hasPrefix("revisions held: ") })
        let bounds = held.dropFirst("revisions held: ".count).split(separator: " ")
        let oldest = try #require(UInt64(bounds[0]))
        let newest = try #require(UInt64(bounds[2]))
        #expect(oldest > 0, "the run was long enough for old revisions to go: \(check.output)")
        #expect(newest == seen.keys.max())
        var compared = 0
        for (revision, state) in seen.sorted(by: { $0.key < $1.key }) where revision >= oldest {
            let at = try await sandbox.run(.coreDaemon, ["--at", "\(revision)", "--state-dir", sandbox.stateDirectory])
            #expect(at.status == 0 && at.output == state, "revision \(revision): \(at)")
            compared += 1
        }
        #expect(compared >= 10, "only \(compared) revisions were held: \(check.output)")
        let gone = try await sandbox.run(.coreDaemon, ["--at", "\(oldest - 1)", "--state-dir", sandbox.stateDirectory])
        #expect(gone.status == 1)
        #expect(gone.error == "core-daemon: revision \(oldest - 1) is older than \(sandbox.stateDirectory) holds: the oldest it can show is \(oldest) (older ones went when newer snapshots covered them)\n", "\(gone)")
        let future = try await sandbox.run(.coreDaemon, ["--at", "\(newest + 1)", "--state-dir", sandbox.stateDirectory])
        #expect(future.status == 1 && future.error.contains("is past the newest one"), "\(future)")
    }

    private static func revision(of line: String) -> UInt64? {
        guard let range = line.range(of: #""revision":"#) else { return nil }
        return UInt64(line[range.upperBound...].prefix { $0.isNumber })
    }
}

extension Sandbox {
    /// `shell-client ARGS --socket SOCKET`, run to completion (the words as an array).
    func client(_ arguments: [String]) async throws -> Finished {
        try await run(.shellClient, arguments + ["--socket", socket])
    }
}
