/// Which actions each client has had applied, so that a resent action is applied at most once
/// and answered with its original revision (principle 7).
///
/// A client numbers its actions 1, 2, 3...; the ledger keeps, per client, the highest sequence
/// number applied and the revisions of the most recent ones (enough to answer the resends of a
/// pipelining client). It remembers a bounded number of clients, forgetting the least recently
/// active first. It is part of what a journal and a snapshot make durable.
public struct ClientLedger: Codable, Sendable, Equatable {
    /// What the ledger knows of one client.
    public struct Client: Codable, Sendable, Equatable {
        /// The highest sequence number applied.
        public var lastSeq: UInt64
        /// Recent sequence numbers and the revisions they produced, oldest first.
        public var recent: [Applied]
        /// When it was last active, as a count of ledger updates (for forgetting the idlest).
        public var touched: UInt64
    }

    public struct Applied: Codable, Sendable, Equatable {
        public var seq: UInt64
        public var revision: UInt64
    }

    /// What the ledger says of a (client, seq) about to be applied.
    public enum Verdict: Equatable, Sendable {
        /// Not seen: apply it.
        case new
        /// Already applied, as `revision`: answer with that.
        case applied(revision: UInt64)
        /// Older than what the ledger still remembers of this client.
        case forgotten
    }

    public private(set) var clients: [String: Client] = [:]
    private var clock: UInt64 = 0

    /// How many recent actions are remembered per client.
    public static let recentLimit = 1024
    /// How many clients are remembered.
    public static let clientLimit = 4096

    public init() {}

    public func verdict(client: String, seq: UInt64) -> Verdict {
        guard let known = clients[client], seq <= known.lastSeq else { return .new }
        if let applied = known.recent.last(where: { $0.seq == seq }) {
            return .applied(revision: applied.revision)
        }
        return known.recent.first.map { seq < $0.seq } ?? true ? .forgotten : .new
    }

    /// Records that `client`'s action `seq` produced `revision`.
    ///
    /// Constant time: the client's entry is changed in place, and its recent list is trimmed
    /// to ``recentLimit`` only once it has twice that many, so the ledger remembers between
    /// 1024 and 2047 of a busy client's last actions.
    public mutating func record(client: String, seq: UInt64, revision: UInt64) {
        clock += 1
        let known = clients.count
        // One lookup (the client id is hashed once), the entry changed in place.
        clients[client, default: Client(lastSeq: 0, recent: [], touched: clock)].record(seq: seq, revision: revision, clock: clock)
        let isNew = clients.count > known
        if isNew, clients.count > Self.clientLimit, let idlest = clients.min(by: { $0.value.touched < $1.value.touched })?.key {
            clients[idlest] = nil
        }
    }
}

extension ClientLedger.Client {
    mutating func record(seq: UInt64, revision: UInt64, clock: UInt64) {
        lastSeq = max(lastSeq, seq)
        recent.append(ClientLedger.Applied(seq: seq, revision: revision))
        if recent.count >= 2 * ClientLedger.recentLimit {
            recent.removeFirst(recent.count - ClientLedger.recentLimit)
        }
        touched = clock
    }
}
