import FoundationEssentials
import Wire

/// One applied action as the journal keeps it: its revision, the moment its reducer saw as
/// "now", the client and sequence number it came with (for exactly-once), and the action.
///
/// JSON: `{"revision":12,"at":1767225600.125,"client":"…","seq":5,"action":{"add":{"text":"x"}}}`
/// (`client` and `seq` are absent for the core's own actions; those an effect with an id sent
/// say it in `effect`, and a durable timer's firing names its timer in `timer`).
package struct JournalEntry<Action: Codable & Sendable>: Codable, Sendable {
    package var revision: UInt64
    /// Seconds since 1970.
    package var at: Double
    package var client: String?
    package var seq: UInt64?
    /// The id of the effect that sent it, when it had one.
    package var effect: String?
    /// The id of the durable timer whose firing it is: replaying it ends that timer.
    package var timer: String?
    package var action: Action

    package init(revision: UInt64, at: Double, client: String?, seq: UInt64?, effect: String? = nil, timer: String? = nil, action: Action) {
        self.revision = revision
        self.at = at
        self.client = client
        self.seq = seq
        self.effect = effect
        self.timer = timer
        self.action = action
    }
}

extension JournalEntry {
    /// The entry of an action applied from `origin`: a client's id and sequence number, or
    /// the id of the effect or durable timer that sent it. (The one mapping of an origin to
    /// what the journal says of it: the core's records and `history --follow` both use it.)
    /// - Parameters:
    ///   - revision: the revision it made.
    ///   - at: the moment its reducer saw as "now", in seconds since 1970.
    ///   - origin: where it came from.
    ///   - action: the action.
    package init(revision: UInt64, at: Double, origin: ActionOrigin, action: Action) {
        self.init(revision: revision, at: at, client: nil, seq: nil, action: action)
        switch origin {
        case let .client(id, number):
            client = id
            seq = number
        case let .effect(id?):
            effect = id.name
        case let .timer(id, _):
            timer = id.name
        case .effect(nil), .outside:
            break
        }
    }
}

extension JournalEntry: Equatable where Action: Equatable {}

/// A snapshot: the state at a revision and the client ledger, so that recovery can start from
/// it and replay only the journal after it.
///
/// JSON: `{"format":1,"revision":1200,"at":…,"state":{…},"ledger":{…},"timers":[…]}` (`timers`,
/// the durable timers scheduled then, only when there are some).
package struct SnapshotContent<State: Codable & Sendable>: Codable, Sendable {
    /// The version of this layout.
    package var format: Int
    package var revision: UInt64
    /// When the snapshot was taken (seconds since 1970), for people.
    package var at: Double
    package var state: State
    package var ledger: ClientLedger
    /// The durable timers scheduled at this revision.
    package var timers: [SnapshotTimer]?

    package static var currentFormat: Int { 1 }

    package init(revision: UInt64, at: Double, state: State, ledger: ClientLedger, timers: [SnapshotTimer]? = nil) {
        format = Self.currentFormat
        self.revision = revision
        self.at = at
        self.state = state
        self.ledger = ledger
        self.timers = timers
    }
}
