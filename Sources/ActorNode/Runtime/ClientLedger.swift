/// Which actions each client has had applied, so that a resent action is applied at most once
/// and answered with its original revision (principle 7).
///
/// A client numbers its actions 1, 2, 3...; the ledger keeps, per client, the highest sequence
/// number applied and the revisions of the last ``recentLimit`` applied (enough to answer the
/// resends of a pipelining client, which never has more than 512 unanswered). It remembers a bounded number of clients, forgetting the least recently
/// active first. It is part of what a journal and a snapshot make durable.
public struct ClientLedger: Codable, Sendable, Equatable {
    /// What the ledger knows of one client.
    public struct Client: Codable, Sendable, Equatable {
        /// The highest sequence number applied.
        public var lastSeq: UInt64
        /// When it was last active, as a count of ledger updates (for forgetting the idlest).
        public var touched: UInt64
        /// The newest ``ClientLedger/recentLimit`` applied, in the order applied: a ring once
        /// full, its oldest at `oldest` (so that remembering one more costs the same however
        /// many are remembered).
        private var ring: [Applied]
        private var oldest = 0

        init(touched: UInt64) {
            lastSeq = 0
            self.touched = touched
            ring = []
        }

        /// The sequence numbers remembered and the revisions they produced, oldest first.
        public var recent: [Applied] { Array(ring[oldest...] + ring[..<oldest]) }

        /// The revision `seq` produced, if it is remembered.
        func revision(of seq: UInt64) -> UInt64? {
            // Newest first: a resend is usually of the last few.
            var index = oldest
            for _ in 0 ..< ring.count {
                index = index == 0 ? ring.count - 1 : index - 1
                if ring[index].seq == seq { return ring[index].revision }
            }
            return nil
        }

        /// The oldest sequence number remembered.
        var oldestSeq: UInt64? { ring.isEmpty ? nil : ring[oldest].seq }

        mutating func record(seq: UInt64, revision: UInt64, clock: UInt64) {
            lastSeq = max(lastSeq, seq)
            let applied = Applied(seq: seq, revision: revision)
            if ring.count < ClientLedger.recentLimit {
                ring.append(applied)
            } else {
                ring[oldest] = applied
                oldest = oldest + 1 == ring.count ? 0 : oldest + 1
            }
            touched = clock
        }

        private enum CodingKeys: String, CodingKey {
            case lastSeq, recent, touched
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            lastSeq = try container.decode(UInt64.self, forKey: .lastSeq)
            touched = try container.decode(UInt64.self, forKey: .touched)
            // A ledger written by an earlier version may hold more: the newest count.
            ring = Array(try container.decode([Applied].self, forKey: .recent).suffix(ClientLedger.recentLimit))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lastSeq, forKey: .lastSeq)
            try container.encode(recent, forKey: .recent)
            try container.encode(touched, forKey: .touched)
        }

        public static func == (lhs: Client, rhs: Client) -> Bool {
            lhs.lastSeq == rhs.lastSeq && lhs.touched == rhs.touched && lhs.recent == rhs.recent
        }
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
        if let revision = known.revision(of: seq) {
            return .applied(revision: revision)
        }
        return known.oldestSeq.map { seq < $0 } ?? true ? .forgotten : .new
    }

    /// Records that `client`'s action `seq` produced `revision`.
    ///
    /// Constant time: the client's entry is changed in place, and its newest
    /// ``recentLimit`` are kept in a ring, so the ledger remembers exactly a busy client's
    /// last 1024 actions.
    public mutating func record(client: String, seq: UInt64, revision: UInt64) {
        clock += 1
        let known = clients.count
        // One lookup (the client id is hashed once), the entry changed in place.
        clients[client, default: Client(touched: clock)].record(seq: seq, revision: revision, clock: clock)
        let isNew = clients.count > known
        if isNew, clients.count > Self.clientLimit, let idlest = clients.min(by: { $0.value.touched < $1.value.touched })?.key {
            clients[idlest] = nil
        }
    }
}
