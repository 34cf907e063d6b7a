import ActorNode
import FoundationEssentials
import PollContract
import Wire

/// The poll's core. `close --in N` schedules a durable timer: it survives a crash of the core,
/// which re-arms it when it starts again (closing at once if the deadline passed meanwhile),
/// and it fires once.
@main
enum PollCore: CoreApp {
    typealias Contract = Poll
    static let initialState = PollState()

    static let reducer = Reducer<PollState, PollAction, CoreServices> { state, action, environment throws(Rejection) in
        guard !state.closed else { throw Rejection(code: "closed", message: "the poll is closed") }
        switch action {
        case let .propose(text):
            guard !text.isEmpty, text.utf8.count <= 200 else { throw Rejection(code: "bad_text", message: "an option is 1 to 200 bytes") }
            state.options.append(PollOption(id: state.options.count + 1, text: text))
        case let .vote(number):
            guard number >= 1, number <= state.options.count else { throw Rejection(code: "unknown_option", message: "there is no option \(number)") }
            state.options[number - 1].votes += 1
        case .close(in: nil):
            // The first option with the most votes wins; none without options.
            (state.closed, state.closesAt, state.winner) = (true, nil, state.options.max { $0.votes < $1.votes }?.id)
            return .cancel("close")
        case let .close(in: seconds?):
            guard (1 ... 86_400).contains(seconds) else { throw Rejection(code: "bad_delay", message: "a poll closes in 1 to 86400 seconds") }
            // The reducers' "now" is the moment the action is applied, replayed as it was.
            let deadline = environment.now.addingTimeInterval(Double(seconds))
            state.closesAt = deadline.timeIntervalSince1970
            return .send(.close(), at: deadline, id: "close")
        }
        return .none
    }
}
