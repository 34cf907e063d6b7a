import ActorNode
import FoundationEssentials
import Glibc
import Testing

/// A stop signal is never lost, whenever it arrives: a process sent SIGTERM or SIGINT at any
/// moment of its startup either stops cleanly (exit 0, nothing left behind) or was killed by
/// the signal before it created anything. The sweep sends the signal after 0, 0.5, 1, ... ms,
/// until a few runs past the moment the process serves.
@Suite("Stop signals during startup", .serialized)
struct StartupSignalTests {
    @Test("core-daemon sent SIGTERM or SIGINT at any moment of its startup stops cleanly", .timeLimit(.minutes(2)), arguments: [SIGTERM, SIGINT])
    func coreDaemonSweep(signal: Int32) async throws {
        try await sweep(signal: signal, step: .microseconds(500)) { sandbox in
            try sandbox.start(.coreDaemon, ["--socket", sandbox.socket])
        }
    }

    @Test("cama-launch --headless sent SIGTERM or SIGINT at any moment of its startup stops cleanly", .timeLimit(.minutes(3)), arguments: [SIGTERM, SIGINT])
    func headlessLauncherSweep(signal: Int32) async throws {
        try await sweep(signal: signal, step: .milliseconds(1)) { sandbox in
            try sandbox.start(.camaLaunch, ["--headless", "--socket", sandbox.socket])
        }
    }

    /// Starts a process with `start` in a new sandbox and sends it `signal` after a delay that
    /// grows by `step` each round, until five rounds in which it was already serving when the
    /// signal came; then once more well after that, when it has settled. Checks how each run
    /// ended and what it left.
    private func sweep(signal: Int32, step: Duration, start: (Sandbox) throws -> Started) async throws {
        var delay = Duration.zero
        var roundsServing = 0
        var rounds = 0
        var settled = false
        while !settled {
            rounds += 1
            if roundsServing == 5 {
                delay += .milliseconds(250)
                settled = true
            }
            let sandbox = try Sandbox()
            let started = try start(sandbox)
            if delay > .zero { try await Task.sleep(for: delay) }
            // Both binaries write "core-daemon[pid]: serving PATH" once the core serves (the
            // launcher echoes its core's log).
            let wasServing = started.errorOutput.contains(": serving ")
            started.process.send(signal)
            let termination = await started.process.waitForExit(timeout: .seconds(5))
            let context = "\(Signals.name(signal)) after \(delay) (round \(rounds)); stderr: \(started.errorOutput.debugDescription)"
            guard let termination else {
                Issue.record("still running 5 s after \(context)")
                started.process.send(SIGKILL)
                _ = await started.process.waitForExit()
                return
            }
            #expect(termination == .exited(0) || termination == .signaled(signal), "\(termination): \(context)")
            #expect(!fileExists(sandbox.socket), "the socket was left behind: \(context)")
            #expect(!fileExists(sandbox.socket + ".lock"), "the socket's lock was left behind: \(context)")
            #expect(!fileExists(sandbox.stateDirectory + "/core.lock"), "the state's lock was left behind: \(context)")
            if wasServing {
                #expect(termination == .exited(0), "a serving process must stop cleanly: \(context)")
                #expect(started.errorOutput.contains("received \(Signals.name(signal))"), "\(context)")
                roundsServing += 1
            }
            // Nothing the process started outlives it (a launcher's core watches its lifeline).
            await eventually("no process of round \(rounds) is left", timeout: .seconds(5)) {
                processes(mentioning: sandbox.directory).isEmpty
            }
            guard delay < .seconds(2) else {
                Issue.record("the process never served within 2 s")
                return
            }
            delay += step
        }
    }
}

