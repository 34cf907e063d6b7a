import FoundationEssentials
import Wire

/// One applied action as the journal keeps it: its revision, the moment its reducer saw as
/// "now", the client and sequence number it came with (for exactly-once), and the action.
///
/// JSON: `{"revision":12,"at":1767225600.125,"client":"…","seq":5,"action":{"add":{"text":"x"}}}`
/// (`client` and `seq` are absent for the core's own actions).
package struct JournalEntry<Action: Codable & Sendable>: Codable, Sendable {
    package var revision: UInt64
    /// Seconds since 1970.
    package var at: Double
    package var client: String?
    package var seq: UInt64?
    package var action: Action

    package init(revision: UInt64, at: Double, client: String?, seq: UInt64?, action: Action) {
        self.revision = revision
        self.at = at
        self.client = client
        self.seq = seq
        self.action = action
    }
}

extension JournalEntry: Equatable where Action: Equatable {}

/// A snapshot: the state at a revision and the client ledger, so that recovery can start from
/// it and replay only the journal after it.
///
/// JSON: `{"format":1,"revision":1200,"at":…,"state":{…},"ledger":{…}}`.
package struct SnapshotContent<State: Codable & Sendable>: Codable, Sendable {
    /// The version of this layout.
    package var format: Int
    package var revision: UInt64
    /// When the snapshot was taken (seconds since 1970), for people.
    package var at: Double
    package var state: State
    package var ledger: ClientLedger

    package static var currentFormat: Int { 1 }

    package init(revision: UInt64, at: Double, state: State, ledger: ClientLedger) {
        format = Self.currentFormat
        self.revision = revision
        self.at = at
        self.state = state
        self.ledger = ledger
    }
}
