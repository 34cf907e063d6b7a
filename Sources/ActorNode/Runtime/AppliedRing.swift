/// A client's most recently applied actions, oldest first, at most a fixed number of them: the
/// part of a ``ClientLedger/Client`` that answers a resent action with its revision.
///
/// Each is kept in 8 bytes while it can be: its seq and its revision as 32-bit offsets from a
/// base, which moves up (all offsets written again) when a revision no longer fits. Kept as two
/// 64-bit numbers each, a busy client's last 1024 took 16 KB, and a core that had served a few
/// hundred clients held megabytes of them: about half of a core's memory beyond its state at
/// 100,000 items (scripts/bench.sh row 5). Where offsets cannot hold them all (a seq resent from
/// more than 2^31 before the others, or revisions more than 2^32 apart), the ring keeps them
/// whole from then on: the same answers, in twice the memory.
struct AppliedRing: Sendable {
    typealias Applied = ClientLedger.Applied

    /// One action in 8 bytes: its seq and revision less the ring's base.
    private struct Packed: Sendable {
        var seq: Int32
        var revision: UInt32
    }

    /// How many the ring holds at most.
    let limit: Int
    private var base = Applied(seq: 0, revision: 0)
    private var packed: [Packed] = []
    /// Every action whole, once one could not be packed (then `packed` is empty).
    private var whole: [Applied]?
    /// Where the oldest is, once the ring is full.
    private var oldest = 0

    /// An empty ring.
    /// - Parameter limit: how many it holds at most; the oldest makes room for a new one.
    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { whole?.count ?? packed.count }

    /// The memory each action takes in the ring: 8 bytes packed, 16 whole.
    var bytesPerAction: Int { whole == nil ? MemoryLayout<Packed>.stride : MemoryLayout<Applied>.stride }

    /// The ring's actions, oldest first.
    var elements: [Applied] {
        var all: [Applied] = []
        all.reserveCapacity(count)
        for offset in 0 ..< count { all.append(self[(oldest + offset) % count]) }
        return all
    }

    private subscript(index: Int) -> Applied {
        if let whole { return whole[index] }
        let entry = packed[index]
        return Applied(seq: base.seq &+ UInt64(bitPattern: Int64(entry.seq)), revision: base.revision &+ UInt64(entry.revision))
    }

    /// The revision `seq` produced, if the ring holds it (the newest first: a resend is usually
    /// of the last few).
    func revision(of seq: UInt64) -> UInt64? {
        var index = oldest
        for _ in 0 ..< count {
            index = index == 0 ? count - 1 : index - 1
            let applied = self[index]
            if applied.seq == seq { return applied.revision }
        }
        return nil
    }

    /// Adds `applied` as the newest; when the ring is full, the oldest makes room.
    /// - Parameter applied: an action just applied. Its revision is at least any the ring holds
    ///   (the core applies in order of revision).
    /// - Returns: the action let go of, if one was.
    @discardableResult
    mutating func append(_ applied: Applied) -> Applied? {
        let full = count == limit
        let evicted = full ? self[oldest] : nil
        if whole != nil {
            store(applied, full: full)
        } else if let entry = pack(applied) {
            if full { packed[oldest] = entry } else { packed.append(entry) }
        } else {
            rebase(adding: applied, full: full)
        }
        if full { oldest = oldest + 1 == limit ? 0 : oldest + 1 }
        return evicted
    }

    private mutating func store(_ applied: Applied, full: Bool) {
        if full { whole![oldest] = applied } else { whole!.append(applied) }
    }

    private func pack(_ applied: Applied) -> Packed? {
        let seq = Int64(bitPattern: applied.seq &- base.seq)
        guard applied.revision >= base.revision, applied.revision - base.revision <= UInt64(UInt32.max),
              let seq = Int32(exactly: seq) else { return nil }
        return Packed(seq: seq, revision: UInt32(applied.revision - base.revision))
    }

    /// Moves the base to the new action's seq and the oldest revision that stays, writes every
    /// offset again, and adds `applied`; or keeps them all whole if offsets cannot hold them.
    private mutating func rebase(adding applied: Applied, full: Bool) {
        var staying = elements
        if full { staying.removeFirst() }
        staying.append(applied)
        let lowest = staying.map(\.revision).min() ?? applied.revision
        base = Applied(seq: applied.seq, revision: lowest)
        var repacked: [Packed] = []
        repacked.reserveCapacity(limit)
        for applied in staying {
            guard let entry = pack(applied) else {
                whole = staying
                whole!.reserveCapacity(limit)
                packed = []
                oldest = full ? limit - 1 : 0
                return
            }
            repacked.append(entry)
        }
        packed = repacked
        // Written oldest first: the oldest is at 0, and `append` moves it past the new one.
        oldest = full ? limit - 1 : 0
    }
}
