import Wire

/// A poll: people propose options and vote; it closes now or at a deadline, and then names a
/// winner (the first option with the most votes).
public enum Poll: AppContract {
    public typealias State = PollState
    public typealias Action = PollAction
    public static let name = "poll"
}

/// An option, numbered from 1 in the order proposed (options are never removed).
public struct PollOption: Codable, Sendable, Equatable, Identifiable {
    public var id: Int
    public var text: String
    public var votes = 0
    public init(id: Int, text: String) { (self.id, self.text) = (id, text) }
}

public struct PollState: Codable, Sendable, Equatable {
    public var options: [PollOption] = []
    public var closed = false
    /// The winning option's number: nil until the poll closes (and left out of the JSON until
    /// then), and after it if it had no options.
    public var winner: Int?
    /// When the poll closes by itself, in seconds since 1970, if it was told to.
    public var closesAt: Double?

    public init() {}
}

/// `{"propose":{"text":"pizza"}}`, `{"vote":{"number":1}}`, `{"close":{}}` (now), or
/// `{"close":{"in":30}}` (in 30 seconds).
public enum PollAction: Codable, Sendable, Equatable {
    case propose(text: String)
    case vote(number: Int)
    case close(in: Int? = nil)
}
