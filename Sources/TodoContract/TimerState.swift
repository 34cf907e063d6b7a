import Wire
/// The focus timer: which item is in focus and how long is left.
///
/// The state holds the deadline (a wall-clock moment, seconds since 1970), not only a countdown:
/// a tick fired late (after a restart of the core) counts the seconds left from it.
///
/// JSON: `{"item":3,"running":true,"remaining":1497,"deadline":1767227100}`; idle:
/// `{"item":null,"running":false,"remaining":0,"deadline":null}`.
public struct TimerState: Codable, Sendable, Equatable {
    /// The item in focus, or nil when the timer is idle.
    public var item: Int?
    public var running: Bool
    /// Whole seconds left, as of the last tick.
    public var remaining: Int
    /// When the focus ends, in seconds since 1970; nil when idle.
    public var deadline: Double?

    public init(item: Int? = nil, running: Bool = false, remaining: Int = 0, deadline: Double? = nil) {
        self.item = item
        self.running = running
        self.remaining = remaining
        self.deadline = deadline
    }

    /// No focus.
    public static let idle = TimerState()

    enum CodingKeys: String, CodingKey {
        case item, running, remaining, deadline
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        item = try container.decodeIfPresent(Int.self, forKey: .item)
        running = try container.decodeIfPresent(Bool.self, forKey: .running) ?? false
        remaining = try container.decodeIfPresent(Int.self, forKey: .remaining) ?? 0
        deadline = try container.decodeIfPresent(Double.self, forKey: .deadline)
    }

    /// Writes `item` and `deadline` as null when absent, so the shape never changes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(item, forKey: .item)
        try container.encode(running, forKey: .running)
        try container.encode(remaining, forKey: .remaining)
        try container.encode(deadline, forKey: .deadline)
    }
}
