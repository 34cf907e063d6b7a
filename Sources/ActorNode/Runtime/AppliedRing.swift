/// A client's most recently applied actions, oldest first, at most a fixed number of them: the
/// part of a ``ClientLedger/Client`` that answers a resent action with its revision.
///
/// Each is kept in 8 bytes while it can be: its seq and its revision as 32-bit offsets from a
/// base, which moves up (all offsets written again) when a revision no longer fits. Kept as two
/// 64-bit numbers each, a busy client's last 1024 took 16 KB: the 91 clients a core has served
/// by the end of scripts/bench.sh row 5 held about 0.5 MB of them, and a ledger full of busy
/// clients (4096) 64 MB. Where offsets cannot hold them all (a seq resent from
/// more than 2^31 before the others, or revisions more than 2^32 apart), the ring keeps them
/// whole from then on: the same answers, in twice the memory.
struct AppliedRing: Sendable {
    typealias Applied = ClientLedger.Applied

    /// How many the ring holds at most.
    let limit: Int
    private var base = Applied(seq: 0, revision: 0)
    /// The actions, in one array so that a copy of a ledger entry retains one buffer: packed,
    /// one word each (the seq's offset from the base, signed, in the high 32 bits; the
    /// revision's in the low 32); or, once one could not be packed, two words each, whole.
    private var storage: [UInt64] = []
    private var isWhole = false
    /// Where the oldest is, once the ring is full.
    private var oldest = 0

    /// An empty ring.
    /// - Parameter limit: how many it holds at most; the oldest makes room for a new one.
    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { isWhole ? storage.count / 2 : storage.count }

    /// The memory each action takes in the ring: 8 bytes packed, 16 whole.
    var bytesPerAction: Int { isWhole ? 16 : 8 }

    /// The ring's actions, oldest first.
    var elements: [Applied] {
        var all: [Applied] = []
        all.reserveCapacity(count)
        for offset in 0 ..< count { all.append(self[(oldest + offset) % count]) }
        return all
    }

    private subscript(index: Int) -> Applied {
        if isWhole { return Applied(seq: storage[2 * index], revision: storage[2 * index + 1]) }
        let word = storage[index]
        let seq = Int64(Int32(truncatingIfNeeded: word >> 32))
        return Applied(seq: base.seq &+ UInt64(bitPattern: seq), revision: base.revision &+ (word & 0xFFFF_FFFF))
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
    /// - Returns: the seq of the action let go of, if one was.
    @inline(__always)
    @discardableResult
    mutating func append(_ applied: Applied) -> UInt64? {
        // Packed, as nearly always: one word written, and the seq let go of read from its word.
        if !isWhole, let word = pack(applied) {
            guard storage.count == limit else {
                storage.append(word)
                return nil
            }
            let evicted = storage[oldest]
            storage[oldest] = word
            oldest = oldest + 1 == limit ? 0 : oldest + 1
            return base.seq &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: evicted >> 32)))
        }
        return appendSlowly(applied)
    }

    /// ``append(_:)`` for a ring kept whole, or an action whose offsets do not fit.
    private mutating func appendSlowly(_ applied: Applied) -> UInt64? {
        let full = count == limit
        let evicted = full ? self[oldest].seq : nil
        if isWhole {
            if full {
                storage[2 * oldest] = applied.seq
                storage[2 * oldest + 1] = applied.revision
            } else {
                storage.append(applied.seq)
                storage.append(applied.revision)
            }
        } else {
            rebase(adding: applied, full: full)
        }
        if full { oldest = oldest + 1 == limit ? 0 : oldest + 1 }
        return evicted
    }

    @inline(__always)
    private func pack(_ applied: Applied) -> UInt64? {
        guard applied.revision >= base.revision, applied.revision - base.revision <= UInt64(UInt32.max),
              let seq = Int32(exactly: Int64(bitPattern: applied.seq &- base.seq)) else { return nil }
        return UInt64(UInt32(bitPattern: seq)) << 32 | (applied.revision - base.revision)
    }

    /// Moves the base to the new action's seq and the oldest revision that stays, writes every
    /// offset again, and adds `applied`; or keeps them all whole if offsets cannot hold them.
    /// Either way they are written oldest first, the oldest at 0, and `append` then moves
    /// `oldest` past the new one.
    private mutating func rebase(adding applied: Applied, full: Bool) {
        var staying = elements
        if full { staying.removeFirst() }
        staying.append(applied)
        base = Applied(seq: applied.seq, revision: staying.map(\.revision).min() ?? applied.revision)
        var words: [UInt64] = []
        words.reserveCapacity(limit)
        for action in staying {
            guard let word = pack(action) else {
                isWhole = true
                words = []
                words.reserveCapacity(2 * limit)
                for action in staying {
                    words.append(action.seq)
                    words.append(action.revision)
                }
                break
            }
            words.append(word)
        }
        storage = words
        oldest = full ? limit - 1 : 0
    }
}
