import ActorNode
import FoundationEssentials
import TodoContract
import Wire

/// The focus timer: focus on an item for a while, tick once a second, and when the time is up
/// count a pomodoro for the item and tell every shell.
///
/// It works on the whole app state, because it crosses features: it checks and credits to-do
/// items, and ends the focus when its item is removed. Each tick is a durable timer
/// (``Effect/send(_:at:id:)``) that schedules the next: a core that crashes or restarts re-arms
/// the pending tick, which fires at once if its moment passed meanwhile and finds the seconds
/// left from the deadline in the state, so nothing in the app resumes the ticking by hand. The
/// reducer reads the time from `environment.now` (the moment the store applies the action at,
/// which the journal records).
enum TimerReducer {
    /// The id of the next tick's durable timer: a new start replaces it, stop cancels it.
    static let ticking: EffectID = "focus-timer"

    /// The longest focus accepted: a day.
    static let maximumSeconds = 86_400

    static let reducer = Reducer<AppState, AppAction, AppEnvironment> { state, action, environment throws(Rejection) in
        switch action {
        case let .timer(action):
            return try reduce(&state, action, environment)
        case .todo(.remove), .todo(.clear):
            // Runs after the to-do reducer: if the item in focus is gone, so is the focus.
            guard let item = state.timer.item, state.todo.index(of: item) == nil else { return .none }
            state.timer = .idle
            return .cancel(ticking)
        case .todo, .counter:
            return .none
        }
    }

    private static func reduce(_ state: inout AppState, _ action: TimerAction, _ environment: AppEnvironment) throws(Rejection) -> Effect<AppAction> {
        switch action {
        case let .start(id, seconds):
            guard state.todo.index(of: id) != nil else {
                throw Rejection(code: TodoRejectCode.unknownItem, message: "no item with id \(id)")
            }
            let seconds = seconds ?? TimerAction.defaultSeconds
            guard (1 ... maximumSeconds).contains(seconds) else {
                throw Rejection(code: TimerRejectCode.badDuration, message: "a focus lasts from 1 to \(maximumSeconds) seconds, not \(seconds)")
            }
            let deadline = environment.now.timeIntervalSince1970 + Double(seconds)
            state.timer = TimerState(item: id, running: true, remaining: seconds, deadline: deadline)
            return nextTick(until: deadline, left: seconds)
        case .stop:
            state.timer = .idle
            return .cancel(ticking)
        case .pick:
            let open = state.todo.items.filter { !$0.done }.map(\.id)
            guard !open.isEmpty else {
                throw Rejection(code: TimerRejectCode.nothingToPick, message: "no item is left to do, so there is nothing to pick")
            }
            // Another item than the one in focus, when there is one: picking is for moving on.
            let others = open.filter { $0 != state.timer.item }
            let candidates = others.isEmpty ? open : others
            // The choice is random, so it is made by an effect and arrives as a `start`.
            return .run { .timer(.start(id: environment.random.element(of: candidates)!, seconds: nil)) }
        case let .tick(at):
            guard state.timer.running, let deadline = state.timer.deadline else { return .none }
            // A tick fired late (its core was down at its moment) counts from when it is applied.
            let remaining = secondsLeft(until: deadline, at: max(at, environment.now.timeIntervalSince1970))
            guard remaining == 0 else {
                state.timer.remaining = remaining
                return nextTick(until: deadline, left: remaining)
            }
            return complete(&state, environment)
        }
    }

    /// Whole seconds left, rounded up, from 0 to Int.max: moments farther apart than an Int
    /// counts (a damaged deadline, a clock set wildly wrong) give Int.max, and a difference that
    /// is not a number gives 0, instead of a conversion that traps.
    static func secondsLeft(until deadline: Double, at moment: Double) -> Int {
        let left = (deadline - moment).rounded(.up)
        guard left > 0 else { return 0 }
        return left < 0x1p63 ? Int(left) : Int.max
    }

    /// The next tick, as a durable timer: when the whole seconds left next change (the last one
    /// at the deadline itself).
    /// - Parameters:
    ///   - deadline: when the focus ends, in seconds since 1970.
    ///   - left: the whole seconds left now (at least 1).
    private static func nextTick(until deadline: Double, left: Int) -> Effect<AppAction> {
        let moment = deadline - Double(left - 1)
        return .send(.timer(.tick(at: moment)), at: Date(timeIntervalSince1970: moment), id: ticking)
    }

    /// The time is up: a pomodoro for the item, the timer idle, and a notice for every shell.
    /// (The count stops at Int32.max: a completion cannot be refused, so it cannot overflow.)
    private static func complete(_ state: inout AppState, _ environment: AppEnvironment) -> Effect<AppAction> {
        var text = "focus complete"
        if let item = state.timer.item, let index = state.todo.index(of: item) {
            if state.todo.items[index].pomodoros < Int32.max { state.todo.items[index].pomodoros += 1 }
            let credited = state.todo.items[index]
            let count = credited.pomodoros == 1 ? "1 pomodoro" : "\(credited.pomodoros) pomodoros"
            text = "focus on \(credited.id) '\(credited.text)' is complete (\(count))"
        }
        state.timer = .idle
        let notice = text
        return .cancel(ticking) + .fireAndForget { environment.notify(notice) }
    }
}
