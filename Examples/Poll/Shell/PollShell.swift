import ActorNode
import PollContract

/// The poll's shell: its verbs and its full screen (the options with a selection: Enter votes,
/// p proposes, c closes), which is also how `state` and `watch` print it.
@main
enum PollShell: ScreenApp {
    typealias Contract = Poll
    static let verbs: [Verb<PollAction>] = [
        Verb("propose", usage: "propose TEXT", "propose an option", example: "send propose pizza") { .propose(text: try $0.text()) },
        Verb("vote", usage: "vote N", "vote for option N", example: "send vote 1") { .vote(number: try $0.integer("an option's number (such as 1)", minimum: 1)) },
        Verb("close", usage: "close [--in SECONDS]", "close the poll, now or later", example: "send close --in 30") { .close(in: try $0.integer(option: "--in", "a number of seconds")) },
    ]

    static func view(_ state: PollState, _ ui: Void) -> Screen<Int> {
        Screen(header: [Row(" poll · " + (state.closed ? "closed" : state.closesAt == nil ? "open" : "open, closing soon"), .bold)],
               list: .selecting(state.options, empty: "  (no options: press p to propose one)") { option, _ in
                   Row(" \(option.id) \(option.text): \(Wording.count(option.votes, "vote"))" + (option.id == state.winner ? " (the winner)" : ""))
               })
    }

    static let keys: [KeyBinding<PollShell>] = [
        KeyBinding(.enter, "v", help: "vote for the selected option") { screen in screen.selected.map { [.send(.vote(number: $0))] } ?? [] },
        KeyBinding("p", help: "propose an option") { _ in [.prompt(Prompt("propose: ") { text, _ in [.send(.propose(text: text))] })] },
        KeyBinding("c", help: "close the poll") { _ in [.confirm("close the poll now?", yes: [.close()])] },
    ]
}
