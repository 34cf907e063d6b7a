import Dispatch
import Glibc
import Synchronization

/// Turns Unix signals into an async sequence, so a main can `for await` SIGTERM like any message.
public enum Signals {
    /// Starts catching `signals` (their default action no longer applies) and returns them as
    /// they arrive.
    public static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = SignalSources(signals) { continuation.yield($0) }
            continuation.onTermination = { _ in sources.cancelAll() }
        }
    }

    /// The conventional name of a signal ("SIGTERM").
    public static func name(_ number: Int32) -> String {
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
        default: return "signal \(number)"
        }
    }
}

/// The dispatch sources behind one signal stream, kept alive until the stream ends.
private final class SignalSources: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = Mutex(sources)
    }

    func cancelAll() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources = []
        }
    }
}
