import ActorNode
import TodoContract
import Wire

/// `shell-client send`: one action (a verb or JSON), or a stream of them from stdin.
enum SendCommand {
    static func run(_ input: SendInput, options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        switch input {
        case let .verb(words):
            return try await sendOne(try parse { () throws(Verb.Mistake) in try Verb.parse(words) }, options: options)
        case let .json(text):
            return try await sendOne(try parse { () throws(Verb.Mistake) in try Verb.parseJSON(text) }, options: options)
        case .standardInput:
            return try await sendLines(options: options)
        }
    }

    private static func parse(_ body: () throws(Verb.Mistake) -> AppAction) throws(CommandFailure) -> AppAction {
        do {
            return try body()
        } catch {
            throw .usage(error.description, program: ShellCommand.program)
        }
    }

    private static func sendOne(_ action: AppAction, options: GlobalOptions) async throws(CommandFailure) -> ExitStatus {
        let watchdog = Watchdog(timeout: options.timeout, message: "the core did not answer")
        watchdog.reset()
        let (link, _) = try await CoreConnection.open(options, role: .script, name: "shell-client send", reconnectFor: options.timeout)
        let outcome: ActionOutcome
        do {
            outcome = try await link.send(action)
        } catch {
            throw CoreConnection.failure(error)
        }
        watchdog.stop()
        await link.close()
        if case let .rejected(reject) = outcome {
            throw CommandFailure(.rejected, "rejected: \(PeerText.escaped(reject.message)) (\(PeerText.escaped(reject.code)))")
        }
        return .success
    }

    /// Sends each line as soon as it is read, keeping up to `window` actions in flight; the core
    /// applies them in order. A line that does not parse or is rejected is reported with its
    /// number and the rest go on; the exit status is the worst seen.
    private static func sendLines(options: GlobalOptions, window: Int = 128) async throws(CommandFailure) -> ExitStatus {
        let (link, _) = try await CoreConnection.open(options, role: .script, name: "shell-client send -", reconnectFor: options.timeout)
        let watchdog = Watchdog(timeout: options.timeout, message: "the core did not answer")
        var inFlight = RingQueue<(line: Int, seq: UInt64)>()
        var worst = ExitStatus.success
        var lineNumber = 0

        func settleOldest() async throws(CommandFailure) {
            guard let (line, seq) = inFlight.popFirst() else { return }
            let outcome: ActionOutcome
            do {
                outcome = try await link.outcome(of: seq)
            } catch {
                throw CoreConnection.failure(error)
            }
            if inFlight.isEmpty { watchdog.stop() } else { watchdog.reset() }
            if case let .rejected(reject) = outcome {
                await StandardStreams.err("shell-client: line \(line): rejected: \(PeerText.escaped(reject.message)) (\(PeerText.escaped(reject.code)))\n")
                worst = max(worst, .rejected)
            }
        }

        for await text in LineReader.lines() {
            lineNumber += 1
            let trimmed = text.drop { $0.isWhitespace }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let action: AppAction
            do {
                action = try Verb.parseLine(text)
            } catch {
                await StandardStreams.err("shell-client: line \(lineNumber): \(error)\n")
                worst = max(worst, .usage)
                continue
            }
            do {
                inFlight.append((lineNumber, try await link.submit(action)))
            } catch {
                throw CoreConnection.failure(error)
            }
            if inFlight.count == 1 { watchdog.reset() }
            if inFlight.count >= window { try await settleOldest() }
        }
        while !inFlight.isEmpty { try await settleOldest() }
        await link.close()
        return worst
    }
}

extension ExitStatus: Comparable {
    public static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A small FIFO for the actions in flight.
struct RingQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    var count: Int { elements.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head > 1024, head * 2 > elements.count {
            elements.removeSubrange(0 ..< head)
            head = 0
        }
        return element
    }
}
