import ActorNode
import FoundationEssentials
import PollContract
import Wire

/// The poll's core. Its deadline survives a crash: it is in the state, and a core that starts
/// with one waits for it again (`startup`), closing at once if it passed meanwhile.
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
            state.closesAt = environment.now.timeIntervalSince1970 + Double(seconds)
            fallthrough
        case .resume:
            guard let deadline = state.closesAt else { return .none }
            return .send(.close(), at: Date(timeIntervalSince1970: deadline), id: "close", on: environment.time)
        }
        return .none
    }

    /// (A client may send `resume` too: it waits for the same deadline again, which changes nothing.)
    static func startup(for state: PollState) -> [PollAction] { state.closesAt == nil ? [] : [.resume] }
}
