import Wire
/// The whole state of the reference app, as the core owns it and every shell sees it.
///
/// JSON: `{"todo":{"items":[...],"nextId":2},"counter":{"value":0},"timer":{...}}`. Features add
/// top-level keys; keys are only ever added, and a key missing from older JSON takes its default.
public struct AppState: Codable, Sendable, Equatable {
    public var todo: TodoState
    public var counter: CounterState
    public var timer: TimerState

    public init(todo: TodoState = TodoState(), counter: CounterState = CounterState(), timer: TimerState = .idle) {
        self.todo = todo
        self.counter = counter
        self.timer = timer
    }

    enum CodingKeys: String, CodingKey {
        case todo, counter, timer
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        todo = try container.decodeIfPresent(TodoState.self, forKey: .todo) ?? TodoState()
        counter = try container.decodeIfPresent(CounterState.self, forKey: .counter) ?? CounterState()
        timer = try container.decodeIfPresent(TimerState.self, forKey: .timer) ?? .idle
    }
}
