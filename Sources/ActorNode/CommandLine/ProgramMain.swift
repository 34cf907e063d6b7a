import Glibc

/// The shape of every CAMA `main`, and the one place where a CAMA program ends: a synchronous
/// `main` blocks the signals it handles, decides what to run, and hands over to ``run(program:receiving:_:)``.
///
/// ```swift
/// @main enum CoreMain {
///     static func main() {
///         Signals.block(Signals.stop)          // first, while single-threaded
///         ProgramMain.run(program: "my-core", receiving: Signals.stop) { await serve() }
///     }
/// }
/// ```
///
/// Library code reports typed errors (a ``CommandFailure`` for a command); only this runner
/// turns them into a line on stderr and an exit status.
public enum ProgramMain {
    /// Runs `body` on Swift's cooperative pool and exits the process with the status it
    /// returns, or, if it throws, with the failure's status after writing `program: message` on
    /// stderr. Meanwhile the main thread takes `signals` (blocked beforehand with
    /// ``Signals/block(_:)``) with `sigwait` and passes them to ``Signals/receive()``; with no
    /// signals it just waits. It never returns.
    /// - Parameters:
    ///   - program: the program's name, for the line that reports a failure.
    ///   - signals: the signals the program handles; empty when it keeps every default action.
    ///   - body: the program; its result is the exit status.
    public static func run(
        program: String, receiving signals: [Int32],
        _ body: @escaping @Sendable () async throws(CommandFailure) -> Int32
    ) -> Never {
        Task.detached {
            let status: Int32
            do throws(CommandFailure) {
                status = try await body()
            } catch {
                fail(error, program: program)
            }
            terminate(status)
        }
        guard !signals.isEmpty else {
            while true { pause() }
        }
        var set = Signals.signalSet(signals)
        while true {
            var number: Int32 = 0
            guard sigwait(&set, &number) == 0 else { continue }
            SignalHub.shared.deliver(number)
        }
    }

    /// Runs `body` on the calling thread (the main thread, for a command that does one thing
    /// and waits for it with blocking calls) and exits with the status it returns, or, if it
    /// throws, with the failure's status after writing `program: message` on stderr. Nothing
    /// else is started: no task, no thread. `body` writes its output itself, at once (with
    /// ``StandardStreams/writeNow(_:_:)``), since nothing is flushed after it. It never returns.
    /// - Parameters:
    ///   - program: the program's name, for the line that reports a failure.
    ///   - body: the program; its result is the exit status.
    public static func runHere(program: String, _ body: () throws(CommandFailure) -> Int32) -> Never {
        do throws(CommandFailure) {
            exit(try body())
        } catch {
            fail(error, program: program)
        }
    }

    /// Writes `program: message` on stderr and exits with the failure's status: for a mistake
    /// found before ``run(program:receiving:_:)`` (the command line), or from it.
    /// - Parameters:
    ///   - failure: what went wrong.
    ///   - program: the program's name.
    public static func fail(_ failure: CommandFailure, program: String) -> Never {
        BlockingWriter.standardError.flushBlocking(timeout: .seconds(2))
        _ = StandardStreams.writeAll(2, "\(program): \(failure.message)\n")
        exit(failure.status.rawValue)
    }

    /// Exits with `status` once what was written to stdout and stderr has gone out (for at most
    /// two seconds each).
    /// - Parameter status: the exit status.
    public static func terminate(_ status: Int32) -> Never {
        BlockingWriter.standardOutput.flushBlocking(timeout: .seconds(2))
        BlockingWriter.standardError.flushBlocking(timeout: .seconds(2))
        exit(status)
    }
}
