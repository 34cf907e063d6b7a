import Glibc
import Synchronization

/// Unix signals as messages, with no window in which one is lost.
///
/// The mechanism, the same in every binary:
/// 1. The first statement of a synchronous `main` calls ``block(_:)`` with every signal the
///    program handles, while the process has a single thread; every thread started later
///    inherits the mask. From then on a handled signal can neither run its default action nor
///    be discarded: it stays pending in the kernel.
/// 2. `main` ends with ``ProgramMain/run(program:receiving:_:)``, which runs the program's async body
///    on Swift's pool and keeps the main thread as the one that takes the handled signals,
///    synchronously, from a `signalfd`.
/// 3. Once the program is ready to act on them, ``receive()`` hands them over as an async
///    sequence, so it can `for await` SIGTERM like any other message; signals that arrived
///    earlier come first.
///
/// No signal is ever set to `SIG_IGN` for this (an ignored signal never becomes pending), and
/// children started through ``ChildProcess`` begin with an empty mask and default dispositions.
/// An async `main` cannot do this: on Linux, Dispatch parks the main thread in `sigsuspend`
/// with every signal unblocked, where a blocked signal would run its default action.
public enum Signals {
    /// The signals a long-running process stops on: SIGINT (Ctrl-C), SIGTERM (kill, systemd,
    /// a supervisor) and SIGHUP (its terminal went away).
    public static let stop: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Blocks `signals` in the calling thread, and so in every thread it starts from now on.
    /// Call it first thing in `main`, while the process has a single thread.
    /// - Parameter signals: the signals the program handles.
    package static func block(_ signals: [Int32]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks `signals` in the calling thread, restoring their default actions (one that is
    /// pending acts at once). For a `main` that learns, before it starts any thread, that the
    /// command it runs handles no signal (`--help`, a one-shot command).
    /// - Parameter signals: the signals given to ``block(_:)``.
    package static func unblock(_ signals: [Int32]) {
        var set = signalSet(signals)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signals the main thread takes (see ``ProgramMain/run(program:receiving:_:)``), from the
    /// first one that arrived: each is delivered to every sequence open at the time, and those
    /// that arrive while none is open are kept for the next one.
    /// - Returns: the signals in the order they arrived; the sequence ends when its consumer
    ///   stops waiting.
    package static func receive() -> AsyncStream<Int32> {
        SignalHub.shared.subscribe()
    }

    /// The conventional name of a signal ("SIGTERM").
    package static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        case SIGKILL: return "SIGKILL"
        case SIGQUIT: return "SIGQUIT"
        case SIGPIPE: return "SIGPIPE"
        case SIGSEGV: return "SIGSEGV"
        case SIGABRT: return "SIGABRT"
        case SIGILL: return "SIGILL"
        case SIGBUS: return "SIGBUS"
        case SIGTRAP: return "SIGTRAP"
        case SIGFPE: return "SIGFPE"
        case SIGWINCH: return "SIGWINCH"
        default: return "signal \(number)"
        }
    }

    static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in signals { sigaddset(&set, number) }
        return set
    }
}

/// Where the main thread puts the signals it takes, and where ``Signals/receive()`` finds them.
final class SignalHub: Sendable {
    static let shared = SignalHub()

    private struct Subscribers {
        var nextID: UInt64 = 0
        var open: [UInt64: AsyncStream<Int32>.Continuation] = [:]
        /// Signals that arrived while no sequence was open, oldest first.
        var kept: [Int32] = []
    }

    private let subscribers = Mutex(Subscribers())

    func subscribe() -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let id = subscribers.withLock { subscribers in
            subscribers.nextID += 1
            for signal in subscribers.kept { continuation.yield(signal) }
            subscribers.kept = []
            subscribers.open[subscribers.nextID] = continuation
            return subscribers.nextID
        }
        continuation.onTermination = { [self] _ in
            subscribers.withLock { _ = $0.open.removeValue(forKey: id) }
        }
        return stream
    }

    func deliver(_ signal: Int32) {
        subscribers.withLock { subscribers in
            if subscribers.open.isEmpty {
                subscribers.kept.append(signal)
            }
            for continuation in subscribers.open.values { continuation.yield(signal) }
        }
    }
}
