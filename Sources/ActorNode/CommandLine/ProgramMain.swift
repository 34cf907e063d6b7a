import CSystemShims
import Glibc
import Synchronization

/// The shape of every CAMA program: a synchronous `main` blocks the signals it handles,
/// decides what to run, hands over to ``run(program:receiving:_:)``, and returns the status it
/// returns (``CoreHost/main()``, ``ShellKit/main()``, `cama-launch`'s). Nothing here ends the
/// process: the entry point that `@main` runs does, with that status (``ProgramEntry``).
///
/// Library code reports typed errors (a ``CommandFailure`` for a command); only this runner
/// turns them into a line on stderr and an exit status.
package enum ProgramMain {
    /// Runs `body` on Swift's cooperative pool and returns the status it returns, or, if it
    /// throws, the failure's status after writing `program: message` on stderr; in both cases
    /// once what was written to stdout and stderr has gone out (for at most two seconds each).
    /// Meanwhile the calling (main) thread takes `signals` (blocked beforehand with
    /// ``Signals/block(_:)``) and passes them to ``Signals/receive()``. ``end(_:)`` ends it
    /// early. Call it once, from `main`, and exit with what it returns.
    /// - Parameters:
    ///   - program: the program's name, for the line that reports a failure.
    ///   - signals: the signals the program handles; empty when it keeps every default action.
    ///   - body: the program; its result is the exit status.
    /// - Returns: the exit status.
    package static func run(
        program: String, receiving signals: [Int32],
        _ body: @escaping @Sendable () async throws(CommandFailure) -> Int32
    ) -> Int32 {
        let ending = Ending()
        Ending.current.withLock { $0 = ending }
        Task.detached {
            let status: Int32
            do throws(CommandFailure) {
                status = try await body()
            } catch {
                status = report(error, program: program)
            }
            end(status)
        }
        let status = ending.wait(receiving: signals)
        // On the main thread, not on Swift's pool: these may block for a while.
        BlockingWriter.standardOutput.flushBlocking(timeout: .seconds(2))
        BlockingWriter.standardError.flushBlocking(timeout: .seconds(2))
        return status
    }

    /// Ends ``run(program:receiving:_:)`` at once with `status` (it returns once stdout and
    /// stderr are written, for at most two seconds each), whatever its body is doing: for a
    /// failure after which the program must not go on (a journal that cannot be written).
    /// Later calls change nothing. Without a running ``run(program:receiving:_:)`` it does
    /// nothing. It does not wait.
    /// - Parameter status: the exit status.
    package static func end(_ status: Int32) {
        Ending.current.withLock { $0 }?.finish(status)
    }

    /// Runs `body` on the calling thread (the main thread, for a command that does one thing
    /// and waits for it with blocking calls) and returns the status it returns, or, if it
    /// throws, the failure's status after writing `program: message` on stderr. Nothing else is
    /// started: no task, no thread. `body` writes its output itself, at once (with
    /// ``StandardStreams/writeNow(_:_:)``), since nothing is flushed after it.
    /// - Parameters:
    ///   - program: the program's name, for the line that reports a failure.
    ///   - body: the program; its result is the exit status.
    /// - Returns: the exit status.
    package static func runHere(program: String, _ body: () throws(CommandFailure) -> Int32) -> Int32 {
        do throws(CommandFailure) {
            return try body()
        } catch {
            return report(error, program: program)
        }
    }

    /// Writes `program: message` on stderr (after anything already queued there) and returns
    /// the failure's status: for a mistake found before ``run(program:receiving:_:)`` (the
    /// command line), or from it.
    /// - Parameters:
    ///   - failure: what went wrong.
    ///   - program: the program's name.
    /// - Returns: the exit status.
    package static func report(_ failure: CommandFailure, program: String) -> Int32 {
        BlockingWriter.standardError.flushBlocking(timeout: .seconds(2))
        _ = StandardStreams.writeAll(2, "\(program): \(failure.message)\n")
        return failure.status.rawValue
    }
}

/// How a ``ProgramMain/run(program:receiving:_:)`` learns that its program is over: a status
/// and an eventfd the main thread waits on, beside a signalfd for the signals it takes.
private final class Ending: Sendable {
    /// The running program's ending (one per process).
    static let current = Mutex<Ending?>(nil)

    private let status = Mutex<Int32?>(nil)
    private let fd: Int32

    init() {
        fd = eventfd(0, Int32(EFD_CLOEXEC))
        precondition(fd >= 0, "eventfd: \(SystemError("eventfd"))")
    }

    /// Records the status, once, and wakes the main thread.
    func finish(_ status: Int32) {
        let first = self.status.withLock { current in
            defer { if current == nil { current = status } }
            return current == nil
        }
        guard first else { return }
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    /// Passes `signals` to ``Signals/receive()`` until the program is over; returns its status.
    func wait(receiving signals: [Int32]) -> Int32 {
        var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if !signals.isEmpty {
            var set = Signals.signalSet(signals)
            let signalFD = signalfd(-1, &set, Int32(SFD_CLOEXEC))
            precondition(signalFD >= 0, "signalfd: \(SystemError("signalfd"))")
            descriptors.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0))
        }
        while true {
            if let status = status.withLock({ $0 }) { return status }
            guard poll(&descriptors, nfds_t(descriptors.count), -1) > 0 else { continue }
            if descriptors.count > 1, descriptors[1].revents & Int16(POLLIN) != 0 {
                var info = signalfd_siginfo()
                if read(descriptors[1].fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                    SignalHub.shared.deliver(Int32(info.ssi_signo))
                }
            }
        }
    }
}
