/// Which actions each client has had applied, so that a resent action is applied at most once
/// and answered with its original revision (principle 7).
///
/// A client numbers its actions 1, 2, 3...; the ledger keeps, per client, the highest sequence
/// number applied and the revisions of the last ``recentLimit`` applied (enough to answer the
/// resends of a pipelining client, which never has more than 512 unanswered). It remembers a bounded number of clients, forgetting the least recently
/// active first. It is part of what a journal and a snapshot make durable.
package struct ClientLedger: Codable, Sendable, Equatable {
    /// What the ledger knows of one client.
    package struct Client: Codable, Sendable, Equatable {
        /// The highest sequence number applied.
        package var lastSeq: UInt64
        /// When it was last active, as a count of ledger updates (for forgetting the idlest).
        package var touched: UInt64
        /// The newest ``ClientLedger/recentLimit`` applied, in the order applied: a ring once
        /// full (so that remembering one more costs the same however many are remembered).
        private var ring = AppliedRing(limit: ClientLedger.recentLimit)
        /// The highest sequence number the ring has let go of (0: none yet): a seq at or below
        /// it that the ring does not hold may have been applied; one above it was not.
        private var forgottenUpTo: UInt64 = 0

        init(touched: UInt64) {
            lastSeq = 0
            self.touched = touched
        }

        /// The sequence numbers remembered and the revisions they produced, oldest first.
        package var recent: [Applied] { ring.elements }

        /// The revision `seq` produced, if it is remembered.
        func revision(of seq: UInt64) -> UInt64? { ring.revision(of: seq) }

        /// Whether `seq`, which the ring does not hold, may have been applied and let go of.
        func mayHaveForgotten(_ seq: UInt64) -> Bool { seq <= forgottenUpTo }

        mutating func record(seq: UInt64, revision: UInt64, clock: UInt64) {
            lastSeq = max(lastSeq, seq)
            if let evicted = ring.append(Applied(seq: seq, revision: revision)) {
                forgottenUpTo = max(forgottenUpTo, evicted)
            }
            touched = clock
        }

        private enum CodingKeys: String, CodingKey {
            case forgottenUpTo, lastSeq, recent, touched
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            lastSeq = try container.decode(UInt64.self, forKey: .lastSeq)
            touched = try container.decode(UInt64.self, forKey: .touched)
            let recent = try container.decode([Applied].self, forKey: .recent)
            // A ledger written by an earlier version may hold more than the ring: the newest of
            // them. It did not say what it let go of: anything below what it holds, once full.
            let kept = recent.suffix(ClientLedger.recentLimit)
            for applied in kept { ring.append(applied) }
            let dropped = recent.dropLast(ClientLedger.recentLimit).map(\.seq).max() ?? 0
            let unsaid = kept.count == ClientLedger.recentLimit ? (kept.map(\.seq).min() ?? 1) - 1 : 0
            forgottenUpTo = try container.decodeIfPresent(UInt64.self, forKey: .forgottenUpTo) ?? max(dropped, unsaid)
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // Said once there is something to say: the JSON of a client that never filled its
            // ring is as before.
            if forgottenUpTo > 0 { try container.encode(forgottenUpTo, forKey: .forgottenUpTo) }
            try container.encode(lastSeq, forKey: .lastSeq)
            try container.encode(recent, forKey: .recent)
            try container.encode(touched, forKey: .touched)
        }

        package static func == (lhs: Client, rhs: Client) -> Bool {
            lhs.lastSeq == rhs.lastSeq && lhs.touched == rhs.touched && lhs.forgottenUpTo == rhs.forgottenUpTo && lhs.recent == rhs.recent
        }
    }

    package struct Applied: Codable, Sendable, Equatable {
        package var seq: UInt64
        package var revision: UInt64
    }

    /// What the ledger says of a (client, seq) about to be applied.
    package enum Verdict: Equatable, Sendable {
        /// Not seen: apply it.
        case new
        /// Already applied, as `revision`: answer with that.
        case applied(revision: UInt64)
        /// Older than what the ledger still remembers of this client.
        case forgotten
    }

    package private(set) var clients: [String: Client] = [:]
    private var clock: UInt64 = 0
    /// Counts the times ``clients`` gained or lost a client: a ``Place`` found before it last
    /// changed may no longer say where its client is. (Not part of what the ledger records:
    /// not encoded, not compared.)
    private var layout: UInt64 = 0

    private enum CodingKeys: String, CodingKey {
        case clients, clock
    }

    package static func == (lhs: ClientLedger, rhs: ClientLedger) -> Bool {
        lhs.clock == rhs.clock && lhs.clients == rhs.clients
    }

    /// Where a client's entry was found, kept by whoever applies that client's actions (the
    /// core, per connection), so that its id is not hashed again at every action: good for as
    /// long as the ledger gains or loses no client (see ``place(of:remembered:)``).
    package struct Place: Sendable {
        fileprivate let index: [String: Client].Index
        fileprivate let layout: UInt64
    }

    /// How many recent actions are remembered per client.
    package static let recentLimit = 1024
    /// How many clients are remembered.
    package static let clientLimit = 4096

    package init() {}

    package func verdict(client: String, seq: UInt64) -> Verdict {
        guard let index = clients.index(forKey: client) else { return .new }
        var known = clients.values[index]
        return Self.verdict(of: &known, seq: seq)
    }

    /// Where `client`'s entry is, to ask ``verdict(at:seq:)`` and then
    /// ``record(client:seq:revision:at:)`` with its id hashed once (valid until the ledger
    /// changes).
    /// - Parameter client: the client's id.
    package func place(of client: String) -> [String: Client].Index? {
        clients.index(forKey: client)
    }

    /// ``place(of:)``, without hashing `client`'s id when `remembered` was found for it since
    /// the ledger last gained or lost a client; `remembered` is updated.
    /// - Parameters:
    ///   - client: the client's id.
    ///   - remembered: where the ledger said this client's entry was before, or nil.
    package func place(of client: String, remembered: inout Place?) -> [String: Client].Index? {
        if let known = remembered, known.layout == layout, clients.keys[known.index] == client {
            return known.index
        }
        let index = clients.index(forKey: client)
        remembered = index.map { Place(index: $0, layout: layout) }
        return index
    }

    /// ``verdict(client:seq:)`` for the entry at `place` (from ``place(of:)``; nil for a client
    /// the ledger does not know). Mutating only so that the entry is read where it is (through
    /// the dictionary's in-place access), not copied out: a copy retained and released its
    /// ring's storage at every action, some 240 instructions.
    @inline(__always)
    package mutating func verdict(at place: [String: Client].Index?, seq: UInt64) -> Verdict {
        guard let place else { return .new }
        return Self.verdict(of: &clients.values[place], seq: seq)
    }

    @inline(__always)
    private static func verdict(of known: inout Client, seq: UInt64) -> Verdict {
        guard seq <= known.lastSeq else { return .new }
        if let revision = known.revision(of: seq) {
            return .applied(revision: revision)
        }
        // Forgotten only if the ledger has let go of seqs as high: one it never held was never
        // applied (rejected, before or between applied ones), and is new.
        return known.mayHaveForgotten(seq) ? .forgotten : .new
    }

    /// ``record(client:seq:revision:)`` for a client whose entry is at `place` (from
    /// ``place(of:)``, the ledger unchanged since), without hashing its id again.
    package mutating func record(client: String, seq: UInt64, revision: UInt64, at place: [String: Client].Index?) {
        guard let place else {
            record(client: client, seq: seq, revision: revision)
            return
        }
        clock += 1
        clients.values[place].record(seq: seq, revision: revision, clock: clock)
    }

    /// Records that `client`'s action `seq` produced `revision`.
    ///
    /// Constant time: the client's entry is changed in place, and its newest
    /// ``recentLimit`` are kept in a ring, so the ledger remembers exactly a busy client's
    /// last 1024 actions.
    package mutating func record(client: String, seq: UInt64, revision: UInt64) {
        clock += 1
        let known = clients.count
        // One lookup (the client id is hashed once), the entry changed in place.
        clients[client, default: Client(touched: clock)].record(seq: seq, revision: revision, clock: clock)
        let isNew = clients.count > known
        if isNew { layout += 1 }
        if isNew, clients.count > Self.clientLimit, let idlest = clients.min(by: { $0.value.touched < $1.value.touched })?.key {
            clients[idlest] = nil
        }
    }
}
