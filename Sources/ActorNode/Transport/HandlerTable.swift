/// The event loop's handlers, by the token each registration's events carry: a slot each, found
/// by the token's low half without hashing (once for every event), and a generation in its high
/// half, so that an event still queued for a slot that was freed and used again finds no
/// handler rather than the wrong one.
struct HandlerTable {
    private struct Slot {
        var generation: UInt32 = 0
        var handler: (any EventHandler)?
    }

    private var slots: [Slot] = []
    private var free: [Int] = []

    /// Keeps `handler`; returns its token (never 0, which the loop keeps for its own wake-up).
    mutating func add(_ handler: any EventHandler) -> UInt64 {
        let index: Int
        if let reused = free.popLast() {
            index = reused
            slots[index].generation &+= 1
        } else {
            index = slots.count
            slots.append(Slot())
        }
        slots[index].handler = handler
        return UInt64(slots[index].generation) << 32 | UInt64(index + 1)
    }

    /// The handler registered with `token`, if it is still registered.
    func handler(for token: UInt64) -> (any EventHandler)? {
        let index = Int(token & 0xFFFF_FFFF) - 1
        guard index >= 0, index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: token >> 32) else { return nil }
        return slots[index].handler
    }

    /// Forgets the handler registered with `token`; its slot may be used again.
    mutating func remove(_ token: UInt64) {
        let index = Int(token & 0xFFFF_FFFF) - 1
        guard index >= 0, index < slots.count, slots[index].generation == UInt32(truncatingIfNeeded: token >> 32),
              slots[index].handler != nil else { return }
        slots[index].handler = nil
        free.append(index)
    }
}
