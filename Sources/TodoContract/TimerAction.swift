import Wire
/// What the focus timer does.
///
/// JSON: `{"timer":{"start":{"id":3,"seconds":1500}}}` (seconds optional, 25 minutes by
/// default), `{"timer":"stop"}`, and `{"pick":{}}` (or `"pick"`) at the top level. `tick` is the
/// core's own action: it refuses it from clients. (`{"timer":"resume"}`, which cores before
/// durable timers sent themselves at startup, reads as a tick, so that their journals replay.)
public enum TimerAction: Sendable, Equatable {
    /// Focuses on an item for `seconds` (nil: the default, 25 minutes), replacing any focus.
    case start(id: Int, seconds: Int?)
    /// Ends the focus without completing it.
    case stop
    /// Starts focus on a random item that is not done (the choice arrives through an effect).
    case pick
    /// One second passed, at this moment (seconds since 1970): the timer's durable tick.
    case tick(at: Double)

    public static let names = ["start", "stop", "pick", "tick", "resume"]

    /// The default focus: 25 minutes.
    public static let defaultSeconds = 25 * 60

    /// Actions only the core itself may send.
    public var isInternal: Bool {
        switch self {
        case .tick: return true
        case .start, .stop, .pick: return false
        }
    }
}

/// Reject codes of the timer.
public enum TimerRejectCode {
    public static let badDuration = "bad_duration"
    public static let nothingToPick = "nothing_to_pick"
    public static let internalAction = "internal_action"
}

extension TimerAction: Codable {
    private struct Start: Codable { var id: Int; var seconds: Int? }
    private struct Tick: Codable { var at: Double }

    public init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "timer action", names: Self.names)
        switch tag.name {
        case "start":
            let start = try tag.decode(Start.self, kind: "start")
            self = .start(id: start.id, seconds: start.seconds)
        case "stop": self = .stop
        case "pick": self = .pick
        case "resume": self = .tick(at: 0)
        default: self = .tick(at: try tag.decode(Tick.self, kind: "tick").at)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .start(id, seconds): try SingleKeyCoding.encode("start", Start(id: id, seconds: seconds), to: encoder)
        case .stop: try SingleKeyCoding.encode("stop", to: encoder)
        case .pick: try SingleKeyCoding.encode("pick", to: encoder)
        case let .tick(at): try SingleKeyCoding.encode("tick", Tick(at: at), to: encoder)
        }
    }
}
