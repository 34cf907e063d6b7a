import Glibc

/// The shape of every CAMA `main`: a synchronous function that blocks the signals it handles,
/// decides what to run, and hands over to ``run(receiving:_:)``.
///
/// ```swift
/// @main enum CoreMain {
///     static func main() {
///         Signals.block(Signals.stop)          // first, while single-threaded
///         ProgramMain.run(receiving: Signals.stop) { await serve() }
///     }
/// }
/// ```
public enum ProgramMain {
    /// Runs `body` on Swift's cooperative pool and exits the process with the status it
    /// returns. Meanwhile the main thread takes `signals` (blocked beforehand with
    /// ``Signals/block(_:)``) with `sigwait` and passes them to ``Signals/receive()``; with no
    /// signals it just waits. It never returns.
    /// - Parameters:
    ///   - signals: the signals the program handles; empty when it keeps every default action.
    ///   - body: the program; its result is the exit status.
    public static func run(receiving signals: [Int32], _ body: @escaping @Sendable () async -> Int32) -> Never {
        Task.detached {
            let status = await body()
            exit(status)
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
}
