import ActorNode
import PollContract

/// The poll's shell: its verbs, and how the poll reads as text.
@main
enum PollShell: ShellApp {
    typealias Contract = Poll
    static let summary = "a shell of the poll, for people and for scripts."
    static let verbs: [Verb<PollAction>] = [
        Verb("propose", usage: "propose TEXT", "propose an option", example: "send propose pizza") { .propose(text: try $0.text()) },
        Verb("vote", usage: "vote N", "vote for option N", example: "send vote 1") { .vote(number: try $0.integer("an option's number (such as 1)", minimum: 1)) },
        Verb("close", usage: "close [--in SECONDS]", "close the poll, now or later", example: "send close --in 30") { words in
            try words.integer(option: "--in", "a number of seconds").map { .closeIn(seconds: $0) } ?? .close
        },
    ]

    static func render(_ state: PollState, revision: UInt64) -> String {
        let status = state.closed ? "closed" : state.closesAt == nil ? "open" : "open, closing soon"
        return "revision \(revision): \(status)\n" + state.options.enumerated().map { index, option in
            "  \(index + 1) \(PeerText.escaped(option.text)): \(Wording.count(option.votes, "vote"))\(index + 1 == state.winner ? " (the winner)" : "")\n"
        }.joined()
    }
}
