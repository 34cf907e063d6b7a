/// The list diff behind every patch: trim the common prefix and suffix, recognise one element
/// moved to another place, pair up what is left, then add or remove the rest. Inserting,
/// removing, editing or moving one element costs one operation.
///
/// Generic over the element type, so that typed arrays (compared with `==`, encoding only the
/// elements that changed) and JSON arrays use the same algorithm.
@usableFromInline
enum ArrayDiff {
    /// Appends the operations that take `old` to `new` at `path`. `diffElement` describes the
    /// change of one element that stayed in place; `encode` gives the JSON of a new element.
    /// If the list changed so much that the operations would outnumber its elements, the whole
    /// list is replaced instead.
    ///
    /// `old` and `new` may be the middle of longer lists (a ``ChunkedArray``'s, whose shared
    /// ends were skipped): `offset` is then the index of their first element in the list,
    /// `totalCount` the new list's length, and `encodeWhole` the new list's JSON.
    @inlinable
    static func appendPatch<Element: Equatable>(
        from old: [Element], to new: [Element], at path: JSONPointer,
        offset: Int = 0, totalCount: Int? = nil, into patch: inout JSONPatch,
        diffElement: (Element, Element, JSONPointer, inout JSONPatch) throws -> Void,
        encode: (Element) throws -> JSONValue,
        encodeWhole: (() throws -> JSONValue)? = nil
    ) throws {
        let (prefix, suffix) = old.withUnsafeBufferPointer { old in
            new.withUnsafeBufferPointer { new in
                commonEnds(old, new, orEqual: { equal(old.baseAddress! + $0, new.baseAddress! + $1) })
            }
        }
        let oldMiddle = old[prefix ..< old.count - suffix]
        let newMiddle = new[prefix ..< new.count - suffix]
        if oldMiddle.isEmpty, newMiddle.isEmpty { return }
        // Where a local position is in the whole list.
        func at(_ index: Int) -> JSONPointer { path.appending(index: offset + index) }
        let last = prefix + oldMiddle.count - 1

        if oldMiddle.count == newMiddle.count, oldMiddle.count >= 2 {
            if oldMiddle.first == newMiddle.last, oldMiddle.dropFirst().elementsEqual(newMiddle.dropLast()) {
                patch.append(.move(from: at(prefix), to: at(last)))
                return
            }
            if oldMiddle.last == newMiddle.first, oldMiddle.dropLast().elementsEqual(newMiddle.dropFirst()) {
                patch.append(.move(from: at(last), to: at(prefix)))
                return
            }
        }
        var operations = JSONPatch()
        let paired = min(oldMiddle.count, newMiddle.count)
        for step in 0 ..< paired {
            try diffElement(oldMiddle[prefix + step], newMiddle[prefix + step], at(prefix + step), &operations)
        }
        if newMiddle.count > paired {
            for index in prefix + paired ..< prefix + newMiddle.count {
                operations.append(.add(at(index), try encode(new[index])))
            }
        } else if oldMiddle.count > paired {
            for index in (prefix + paired ..< prefix + oldMiddle.count).reversed() {
                operations.append(.remove(at(index)))
            }
        }
        if operations.count > max(1, totalCount ?? new.count) {
            patch.append(.replace(path, try encodeWhole?() ?? .array(new.map(encode))))
        } else {
            patch.append(contentsOf: operations)
        }
    }

    /// How many elements at the start and, after those, at the end the two lists share.
    ///
    /// Elements are seen first bit for bit. Most of the elements compared are copies that did
    /// not change (the rest of a chunk of a ``ChunkedArray``, around the one element an action
    /// changed), and the same bits are the same value, whose JSON is the same; only elements
    /// whose bits differ are asked `orEqual`. (In code not specialized for the element type, as
    /// a list's diff is when the app's types are in another module, `==` copies both elements
    /// and calls a witness: about 100 instructions an element of a small struct, against a few
    /// words compared here.)
    /// - Parameters:
    ///   - old: the elements before.
    ///   - new: the elements after.
    ///   - orEqual: whether the elements at two indices (in `old`, in `new`) are equal though
    ///     their bits differ; nil where only the same bits are the same (class references).
    @inlinable
    static func commonEnds<Element>(
        _ old: UnsafeBufferPointer<Element>, _ new: UnsafeBufferPointer<Element>, orEqual: ((Int, Int) -> Bool)?
    ) -> (prefix: Int, suffix: Int) {
        guard let oldStart = old.baseAddress, let newStart = new.baseAddress else { return (0, 0) }
        let stride = MemoryLayout<Element>.stride
        let size = MemoryLayout<Element>.size
        let shorter = min(old.count, new.count)
        // Each side walked by a pointer a stride at a time, not an index multiplied out (and
        // checked for overflow) at each element: in code not specialized for the element type,
        // that was a third of the walk.
        var oldAt = UnsafeRawPointer(oldStart)
        var newAt = UnsafeRawPointer(newStart)
        var prefix = 0
        while prefix < shorter, sameBytes(oldAt, newAt, count: size) || orEqual?(prefix, prefix) ?? false {
            prefix &+= 1
            oldAt += stride
            newAt += stride
        }
        let room = shorter - prefix
        var oldLast = old.count - 1
        var newLast = new.count - 1
        oldAt = UnsafeRawPointer(oldStart) + oldLast * stride
        newAt = UnsafeRawPointer(newStart) + newLast * stride
        var suffix = 0
        while suffix < room, sameBytes(oldAt, newAt, count: size) || orEqual?(oldLast, newLast) ?? false {
            suffix &+= 1
            oldLast &-= 1
            newLast &-= 1
            oldAt -= stride
            newAt -= stride
        }
        return (prefix, suffix)
    }

    /// `==` of the two elements where they are, borrowed, not copied out first.
    @inlinable
    static func equal<Element: Equatable>(_ a: UnsafePointer<Element>, _ b: UnsafePointer<Element>) -> Bool {
        a.pointee == b.pointee
    }

    /// Whether `count` bytes at `a` and at `b` are the same, compared a word at a time, then
    /// what is left (fewer than 8 bytes) as 4, 2 and 1: at most three more loads, where a byte
    /// at a time took up to seven (an element of 29 bytes has 5 left after its words). (With
    /// wrapping arithmetic: the offsets stay below `count`, and checking each step for overflow
    /// doubled the instructions of the loop.)
    @inlinable
    static func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var offset = 0
        while offset &+ 8 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
                return false
            }
            offset &+= 8
        }
        if offset &+ 4 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt32.self) else {
                return false
            }
            offset &+= 4
        }
        if offset &+ 2 <= count {
            guard a.loadUnaligned(fromByteOffset: offset, as: UInt16.self) == b.loadUnaligned(fromByteOffset: offset, as: UInt16.self) else {
                return false
            }
            offset &+= 2
        }
        if offset < count {
            return a.load(fromByteOffset: offset, as: UInt8.self) == b.load(fromByteOffset: offset, as: UInt8.self)
        }
        return true
    }
}
