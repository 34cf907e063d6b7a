import ActorNode
import TodoContract
import Wire

/// The line-mode shell, written against channels: lines typed in, the core's link out.
/// It prints the state whenever it changes and the reason for every rejected action.
struct LineShell {
    let link: ShellLink<AppState, AppAction>
    let input: Chan<String>
    /// Where the shell writes (stdout in the real program).
    var output: @Sendable (String) async -> Void = { await StandardStreams.out($0) }

    static let help = """
    commands: add TEXT · clear · remove ID · toggle ID · edit ID TEXT · move ID POSITION
              counter increment|decrement|reset|randomize · counter set N
              timer start ID [--seconds S] · timer stop · pick
              list (show the state again) · help · quit
    """

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
        throw CoreConnection.failure(ending)
    }

    /// Prints every state; returns how the link ended unless this shell ended it.
    private func printStates() async -> LinkError? {
        for await event in link.events {
            switch event {
            case let .state(revision, state):
                await output(StateText.render(state, revision: revision))
            case let .notice(text):
                await output("notice: \(PeerText.escaped(text))\n")
            case .presence:
                break
            case let .reconnecting(reason):
                await output("-- \(reason); reconnecting --\n")
            case let .reconnected(revision):
                await output("-- reconnected to the core at revision \(revision) --\n")
            case let .ended(error):
                return error
            }
        }
        return nil
    }

    private func readCommands() async {
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
                    await output(StateText.render(current.state, revision: current.revision))
                }
                continue
            default:
                break
            }
            let action: AppAction
            do {
                action = try Verb.parseLine(line)
            } catch {
                await output("\(error)\n")
                continue
            }
            do {
                if case let .rejected(reject) = try await link.send(action) {
                    await output("rejected: \(PeerText.escaped(reject.message))\n")
                }
            } catch {
                return
            }
        }
    }
}
