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

    @Test("the startup log names the revision recovered and the revision served")
    func servingRevision() async throws {
        let sandbox = try Sandbox()
        var core = try await sandbox.startCore()
        #expect(try await sandbox.client("send", "add", "first").status == 0)
        #expect(try await sandbox.client("send", "add", "second").status == 0)
        core.process.send(SIGTERM)
        _ = await core.process.waitForExit()
        // No timer runs: nothing is applied between the recovery and the serving. (A durable
        // timer whose moment passed while no core ran fires at once, and may come before the
        // line; DurableTimerTests covers that.)
        core = try await sandbox.startCore()
        await eventually("the core logs that it serves") { core.errorOutput.contains("serving ") }
        let log = core.errorOutput
        #expect(log.contains("recovered revision 2 from 2 journal records\n"), "\(log)")
        #expect(log.contains("at revision 2 (protocol"), "\(log)")
    }
}
