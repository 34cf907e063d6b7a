import Testing
@testable import ActorNode

/// A client's ring of recent actions, packed into 32-bit offsets while they fit, answers
/// exactly as the plain ring of whole (seq, revision) pairs it replaced: the same actions held,
/// the same one let go of, the same revision for every seq asked, across moves of its base and
/// after it has had to keep them whole.
@Suite("Applied ring")
struct AppliedRingTests {
    typealias Applied = ClientLedger.Applied

    /// The ring as it was: whole pairs, the oldest dropped when full.
    struct PlainRing {
        let limit: Int
        var held: [Applied] = []

        mutating func append(_ applied: Applied) -> UInt64? {
            held.append(applied)
            return held.count > limit ? held.removeFirst().seq : nil
        }

        func revision(of seq: UInt64) -> UInt64? { held.last { $0.seq == seq }?.revision }
    }

    /// Steps a client's actions may take between two applied: the next seq, a seq resent from
    /// far back (one rejected then, applied now), revisions close together or billions apart.
    static func run(seed: UInt64, limit: Int, steps: Int, far: Bool) {
        var random = SeededRandom(seed: seed)
        var ring = AppliedRing(limit: limit)
        var plain = PlainRing(limit: limit)
        var seq: UInt64 = UInt64.random(in: 1 ... (far ? 1 << 40 : 100), using: &random)
        var revision: UInt64 = UInt64.random(in: 0 ... (far ? 1 << 62 : 1000), using: &random)
        for step in 0 ..< steps {
            var next = seq + 1
            switch UInt64.random(in: 0 ..< 20, using: &random) {
            case 0 where far: revision += UInt64.random(in: 1 << 31 ... 1 << 34, using: &random)
            case 1 where far && seq > 1 << 33: next = seq - UInt64.random(in: 1 << 31 ... 1 << 33, using: &random)
            case 2: next = seq + UInt64.random(in: 2 ... 50, using: &random)
            default: revision += UInt64.random(in: 1 ... 3, using: &random)
            }
            seq = next
            let applied = Applied(seq: seq, revision: revision)
            #expect(ring.append(applied) == plain.append(applied), "seed \(seed), step \(step)")
            #expect(ring.count == plain.held.count)
            if step % 7 == 0 {
                #expect(ring.elements == plain.held, "seed \(seed), step \(step)")
                for held in plain.held.suffix(5) { #expect(ring.revision(of: held.seq) == plain.revision(of: held.seq)) }
                #expect(ring.revision(of: seq + 1) == nil)
            }
        }
        #expect(ring.elements == plain.held)
    }

    @Test("actions close together: packed throughout, as the plain ring", arguments: [1, 2, 3] as [UInt64])
    func close(seed: UInt64) {
        Self.run(seed: seed, limit: 16, steps: 2000, far: false)
    }

    @Test("revisions billions apart and seqs resent from far back: the base moves, or the ring keeps them whole, as the plain ring", arguments: [4, 5, 6, 7] as [UInt64])
    func far(seed: UInt64) {
        Self.run(seed: seed, limit: 16, steps: 3000, far: true)
    }

    @Test("a full ring of the ledger's size takes 8 bytes an action")
    func size() {
        var ring = AppliedRing(limit: ClientLedger.recentLimit)
        for seq in 1 ... UInt64(ClientLedger.recentLimit * 3) {
            ring.append(Applied(seq: seq, revision: (1 << 40) + seq * 3))
        }
        #expect(ring.count == ClientLedger.recentLimit)
        #expect(ring.elements.first == Applied(seq: UInt64(ClientLedger.recentLimit * 2 + 1), revision: (1 << 40) + UInt64(ClientLedger.recentLimit * 2 + 1) * 3))
        #expect(ring.bytesPerAction == 8)
    }
}
