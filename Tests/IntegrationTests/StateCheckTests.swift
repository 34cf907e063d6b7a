import ActorNode
import Glibc
import Testing
import Wire

/// `core-daemon --check` and `--repair` on what people get wrong: a journal this app cannot
/// replay, a directory that is not there. And the startup log names the revision it serves.
@Suite("State directory check")
struct StateCheckTests {
    /// A state directory holding one journal record, written by hand, of `action` at revision 1.
    private func journalOfOne(_ sandbox: Sandbox, action: String) throws {
        mkdir(sandbox.stateDirectory, 0o700)
        let record = DurableRecord.encode(Array(#"{"action":\#(action),"at":0,"client":"c","revision":1,"seq":1}"#.utf8))
        try FileIO.writeAtomically(StateFiles(directory: sandbox.stateDirectory).path(StateFiles.journalName(startingAt: 1)), record)
    }

    @Test("a journal the app's reducers refuse fails --check (which replays it), as it fails a core")
    func replayRefused() async throws {
        let sandbox = try Sandbox()
        try journalOfOne(sandbox, action: #"{"toggle":{"id":99}}"#)
        let check = try await sandbox.run(.coreDaemon, ["--check"])
        #expect(check.status == 1, "\(check)")
        #expect(check.output.contains("replaying revision 1 was rejected"), "\(check)")
        #expect(check.output.hasSuffix("this is not something --repair can fix\n"), "\(check)")
        let core = try await sandbox.run(.coreDaemon, ["--socket", sandbox.socket])
        #expect(core.status == 1)
        #expect(core.error.contains("replaying revision 1 was rejected"), "\(core)")
        let files = StateFiles(directory: sandbox.stateDirectory)
        let journalBefore = try FileIO.read(files.path(StateFiles.journalName(startingAt: 1)))
        let repair = try await sandbox.run(.coreDaemon, ["--repair"])
        #expect(repair.status == 1, "\(repair)")
        #expect(repair.error.hasPrefix("core-daemon: cannot repair \(sandbox.stateDirectory): "), "\(repair)")
        #expect(try FileIO.read(files.path(StateFiles.journalName(startingAt: 1))) == journalBefore)
        #expect(access(sandbox.stateDirectory + "/core.lock", F_OK) != 0, "a failed --repair leaves its lock file behind")

        try journalOfOne(sandbox, action: #"{"add":{"text":"fine"}}"#)
        let sound = try await sandbox.run(.coreDaemon, ["--check"])
        #expect(sound.status == 0, "\(sound)")
        #expect(sound.output.hasSuffix("replays through this version of the app to revision 1: sound\n"), "\(sound)")
    }

    @Test("--check and --repair on a directory that does not exist: status 1, and nothing is created")
    func missingDirectory() async throws {
        let sandbox = try Sandbox()
        let missing = sandbox.directory + "/no-such-state"
        let check = try await sandbox.run(.coreDaemon, ["--check", "--state-dir", missing])
        #expect(check.status == 1)
        #expect(check.output.contains("it does not exist"))
        let repair = try await sandbox.run(.coreDaemon, ["--repair", "--state-dir", missing])
        #expect(repair.status == 1)
        #expect(repair.error == "core-daemon: the state directory \(missing) does not exist: nothing to repair; check the --state-dir you meant\n")
        #expect(access(missing, F_OK) != 0)
    }

    @Test("a state directory others can write to is refused, saying how to fix it")
    func unsafeDirectory() async throws {
        let sandbox = try Sandbox()
        mkdir(sandbox.stateDirectory, 0o700)
        chmod(sandbox.stateDirectory, 0o777)
        let refused = try await sandbox.run(.coreDaemon, ["--socket", sandbox.socket])
        #expect(refused.status == 1)
        #expect(refused.error.hasSuffix("core-daemon: the state directory \(sandbox.stateDirectory) can be written by other users (mode 0777); run 'chmod 700 \(sandbox.stateDirectory)' or choose another with --state-dir\n"), "\(refused)")
        #expect(!UnixSocket.isServing(sandbox.socket))
        let check = try await sandbox.run(.coreDaemon, ["--check"])
        #expect(check.status == 1, "\(check)")
        #expect(check.output.contains("can be written by other users (mode 0777)"), "\(check)")
        chmod(sandbox.stateDirectory, 0o700)
        let sound = try await sandbox.run(.coreDaemon, ["--check"])
        #expect(sound.status == 0, "\(sound)")
        _ = try await sandbox.startCore()
        #expect(UnixSocket.isServing(sandbox.socket))
    }

    @Test("the startup log names the revision served, after the core's own resume")
    func servingRevision() async throws {
        let sandbox = try Sandbox()
        var core = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "focus on me").status == 0)
        #expect(try await sandbox.client("send", "timer", "start", "1").status == 0)
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()
        core = try await sandbox.startCore()
        await eventually("the core logs that it serves") { core.errorOutput.contains("serving ") }
        // Revision 2, or later if the focus ticked before the stop (a loaded machine can take a
        // second between the two): the core serves one revision past what it recovered, the
        // `resume` it sends itself for the running focus.
        let log = core.errorOutput
        let recovered = Self.number(after: "recovered revision ", in: log)
        #expect(recovered.map { $0 >= 2 } == true, "\(log)")
        #expect(log.contains("recovered revision \(recovered ?? -1) from \(recovered ?? -1) journal records"), "\(log)")
        #expect(log.contains("at revision \((recovered ?? -1) + 1) (protocol"), "\(log)")
    }

    /// The whole number right after `prefix` in `text`.
    private static func number(after prefix: String, in text: String) -> Int? {
        guard let start = text.firstRange(of: prefix) else { return nil }
        return Int(text[start.upperBound...].prefix { $0.isNumber })
    }
}
