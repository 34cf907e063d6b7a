/// Timers ordered by deadline, as an indexed binary min-heap: the earliest is found in O(1),
/// added and removed (also from the middle, when cancelled) in O(log n). A cancelled timer's
/// entry and closure are freed at once, not when its deadline would have come.
///
/// Deadlines are ``MonotonicClock`` readings, in nanoseconds.
struct TimerHeap<Payload> {
    struct Entry {
        let id: UInt64
        /// When it is due, in ``MonotonicClock`` nanoseconds.
        let deadline: UInt64
        let payload: Payload
    }

    private var entries: [Entry] = []
    /// Where each timer is in `entries`, by id.
    private var positions: [UInt64: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }

    /// The earliest deadline, if any. (Read in place, as in ``popExpired(now:)``:
    /// `entries.first` would copy the entry, its payload retained and released, at every turn
    /// of the loop.)
    var nextDeadline: UInt64? { entries.isEmpty ? nil : entries[0].deadline }

    mutating func insert(id: UInt64, deadline: UInt64, payload: Payload) {
        entries.append(Entry(id: id, deadline: deadline, payload: payload))
        positions[id] = entries.count - 1
        siftUp(entries.count - 1)
    }

    /// Removes the timer `id`; returns its payload, or nil if it is not here (fired already).
    @discardableResult
    mutating func remove(id: UInt64) -> Payload? {
        guard let index = positions[id] else { return nil }
        return remove(at: index).payload
    }

    /// Removes and returns every timer whose deadline is at or before `now`, earliest first.
    mutating func popExpired(now: UInt64) -> [Entry] {
        var expired: [Entry] = []
        while !entries.isEmpty, entries[0].deadline <= now {
            expired.append(remove(at: 0))
        }
        return expired
    }

    private mutating func remove(at index: Int) -> Entry {
        let removed = entries[index]
        positions[removed.id] = nil
        let last = entries.count - 1
        if index != last {
            entries[index] = entries[last]
            positions[entries[index].id] = index
            entries.removeLast()
            siftDown(index)
            siftUp(index)
        } else {
            entries.removeLast()
        }
        if entries.isEmpty, entries.capacity > 1024 {
            entries = []
            positions = [:]
        }
        return removed
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        positions[entries[a].id] = a
        positions[entries[b].id] = b
    }
}
