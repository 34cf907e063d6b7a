import Synchronization
import Wire

/// The line-mode shell, written against channels: lines typed in, the core's link out. It prints
/// the state whenever it changes (anyone's change) and the reason for every rejected action.
struct LineShell<App: ShellApp>: Sendable {
    let link: ShellLink<App.State, App.Action>
    let input: Chan<String>
    /// Where the shell writes (stdout in the real program).
    var output: @Sendable (String) async -> Void = { await StandardStreams.out($0) }
    /// The newest revision printed, so that an applied action's state is shown before the next
    /// line is read (and before the shell quits).
    private let printed = PrintedRevision()

    init(link: ShellLink<App.State, App.Action>, input: Chan<String>, output: @escaping @Sendable (String) async -> Void = { await StandardStreams.out($0) }) {
        self.link = link
        self.input = input
        self.output = output
    }

    /// The shell's own help: its verbs, and the words it takes itself.
    static var help: String {
        let verbs = App.verbs.map(\.usage).joined(separator: " · ")
        return "commands: \(verbs)\n          list (show the state again) · help · quit"
    }

    /// Runs until the input ends or says quit (status 0), or the core goes away.
    func run() async throws(CommandFailure) -> ExitStatus {
        let ending: LinkError? = await withTaskGroup(of: LinkError?.self) { group in
            group.addTask { await printStates() }
            group.addTask {
                await readCommands()
                await link.close()
                return nil
            }
            let first = await group.next()!
            if first != nil {
                // The core went away: stop reading commands.
                group.cancelAll()
            } else {
                // Input ended: the printer drains what is left, then sees the link end.
                await group.waitForAll()
            }
            return first
        }
        guard let ending else { return .success }
        if case .goodbye = ending {
            await output("\(ending)\n")
            return .success
        }
        throw CoreConnection<App>.failure(ending)
    }

    /// Prints every state; returns how the link ended unless this shell ended it.
    private func printStates() async -> LinkError? {
        for await event in link.events {
            switch event {
            case let .state(revision, state):
                await output(App.render(state, revision: revision))
                printed.reached(revision)
            case let .notice(text):
                await output("notice: \(PeerText.escaped(text))\n")
            case .presence:
                break
            case let .reconnecting(reason):
                await output("-- \(reason) --\n")
            case let .reconnected(revision):
                await output("-- reconnected to the core at revision \(revision) --\n")
            case let .ended(error):
                printed.reached(.max)
                return error
            }
        }
        printed.reached(.max)
        return nil
    }

    /// Reads lines and sends their actions, in the order typed, one at a time.
    private func readCommands() async {
        let verbs = VerbTable(verbs: App.verbs)
        while let line = await input.receive() {
            let words = line.split(whereSeparator: \.isWhitespace)
            guard let first = words.first else { continue }
            switch first {
            case "quit", "exit", "q":
                return
            case "help", "?":
                await output(Self.help + "\n")
                continue
            case "list", "ls", "state":
                if let current = await link.current {
                    await output(App.render(current.state, revision: current.revision))
                }
                continue
            default:
                break
            }
            let action: App.Action
            do {
                action = try verbs.parseLine(line)
            } catch {
                await output("\(error)\n")
                continue
            }
            do {
                switch try await link.send(action) {
                case let .applied(revision):
                    await printed.wait(for: revision)
                case let .rejected(reject):
                    await output("rejected: \(PeerText.escaped(reject.message))\n")
                }
            } catch {
                return
            }
        }
    }
}

/// The newest revision a line shell has printed, and the commands waiting for theirs.
private final class PrintedRevision: Sendable {
    private let state = Mutex<(revision: UInt64, waiters: [(UInt64, CheckedContinuation<Void, Never>)])>((0, []))

    /// Everything up to `revision` is printed (`.max`: nothing more will be).
    func reached(_ revision: UInt64) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.revision = max(state.revision, revision)
            let (ready, waiting) = (state.waiters.filter { $0.0 <= state.revision }, state.waiters.filter { $0.0 > state.revision })
            state.waiters = waiting
            return ready.map(\.1)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once `revision` (or a later one) is printed.
    func wait(for revision: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.revision < revision else { return true }
                state.waiters.append((revision, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
