import ActorNode
import TodoContract
import Wire

/// The counter: Shohin's, with randomize as an effect.
enum CounterReducer {
    static let reducer = Reducer<CounterState, CounterAction, AppEnvironment> { state, action, environment throws(Rejection) in
        switch action {
        case .increment:
            guard state.value < Int.max else { throw overflow }
            state.value += 1
        case .decrement:
            guard state.value > Int.min else { throw overflow }
            state.value -= 1
        case .reset:
            state.value = 0
        case let .set(value):
            state.value = value
        case .randomize:
            // The reducer stays pure: the random number is drawn by an effect and comes back
            // as an ordinary `set` action (which a journal records like any other).
            return .run { .set(value: environment.random.int(in: 0 ... 10)) }
        }
        return .none
    }

    private static let overflow = Rejection(code: "overflow", message: "the counter cannot go beyond \(Int.min)...\(Int.max)")
}
