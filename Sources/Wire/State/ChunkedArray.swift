/// An array for the long lists of an app's state: the elements are kept in chunks of at most
/// 64, and the chunks in groups of at most 64, each chunk and each group shared between copies
/// until one of them changes it. So a copy of the state (the core keeps the state before each
/// action, to describe the change) costs a copy of the short list of groups; a change costs a
/// copy of one group's list of chunks and of one chunk (or nothing, when no copy shares them:
/// they are changed in place); and the diff of two versions skips every group, then every
/// chunk, they share. An action's cost hardly grows with the length of the list: at 100,000
/// elements a change copies and compares about 25 groups, 64 chunks and 64 elements.
///
/// It is a `RandomAccessCollection`, `MutableCollection` and `RangeReplaceableCollection` with
/// `Int` indices from 0, like `Array`, and its JSON is an array's; reducers written against an
/// `Array` work unchanged. Indexing costs a binary search over the groups and one over a
/// group's chunks.
public struct ChunkedArray<Element> {
    /// Elements a chunk holds at most before it is split in two.
    @inlinable static var chunkCapacity: Int { 64 }
    /// Chunks a group holds at most before it is split in two.
    @inlinable static var groupCapacity: Int { 64 }

    /// A run of elements, never changed once made (a change makes a new chunk), so that copies
    /// share it safely.
    @usableFromInline
    final class Chunk {
        @usableFromInline let elements: [Element]

        @inlinable init(_ elements: [Element]) {
            self.elements = elements
        }
    }

    /// A run of chunks, never changed once made, shared as a chunk is.
    @usableFromInline
    final class Group {
        @usableFromInline let chunks: [Chunk]
        /// The index of each chunk's first element, from the group's first.
        @usableFromInline let starts: [Int]
        /// How many elements its chunks hold.
        @usableFromInline let count: Int

        /// The chunks, the index of each one's first element from the group's first, and how
        /// many elements they hold.
        @inlinable init(_ chunks: [Chunk], starts: [Int], count: Int) {
            self.chunks = chunks
            self.starts = starts
            self.count = count
        }
    }

    @usableFromInline var groups: [Group]
    /// The index of each group's first element.
    @usableFromInline var starts: [Int]
    /// How many elements there are (``count``).
    @usableFromInline var storedCount: Int
    @inlinable public var count: Int { storedCount }

    /// An empty list.
    public init() {
        groups = []
        starts = []
        storedCount = 0
    }

    /// The elements of `elements`, in order.
    /// - Parameter elements: the elements.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        var chunks: [Chunk] = []
        var run: [Element] = []
        run.reserveCapacity(Self.chunkCapacity / 2)
        for element in elements {
            run.append(element)
            if run.count == Self.chunkCapacity / 2 {
                chunks.append(Chunk(run))
                run.removeAll(keepingCapacity: true)
            }
        }
        if !run.isEmpty { chunks.append(Chunk(run)) }
        self.init(chunks: chunks)
    }

    /// The elements of an array, in order, cut into chunks by index, each copied from where it
    /// is. (The initializer above, called from code generic over the element, as decoding is,
    /// looks up the sequence's iterator type by its name at its first call, and the runtime's
    /// first check of that type's requirements searches all of the executable's conformance
    /// records: 110,000 instructions of a one-shot `state`, callgrind. An array made of a
    /// slice does the same with the slice's iterator.)
    /// - Parameter elements: the elements.
    public init(_ elements: [Element]) {
        var chunks: [Chunk] = []
        let run = Self.chunkCapacity / 2
        elements.withUnsafeBufferPointer { source in
            var start = 0
            while start < source.count {
                let length = Swift.min(run, source.count - start)
                chunks.append(Chunk([Element](unsafeUninitializedCapacity: length) { piece, initialized in
                    piece.baseAddress!.initialize(from: source.baseAddress! + start, count: length)
                    initialized = length
                }))
                start += length
            }
        }
        self.init(chunks: chunks)
    }

    /// The chunks, in groups half full (room to grow on either side of a change). (By index,
    /// with no iterator and no slice: this runs as generic code when a state is decoded, and
    /// the first use of a generic type the runtime finds by its name checks its requirements,
    /// which searches all of the executable's conformance records: 110,000 instructions of a
    /// one-shot `state`, callgrind.)
    @usableFromInline init(chunks: [Chunk]) {
        groups = []
        starts = []
        storedCount = 0
        let run = Self.groupCapacity / 2
        var index = 0
        while index < chunks.count {
            var groupChunks: [Chunk] = []
            var groupStarts: [Int] = []
            groupChunks.reserveCapacity(run)
            groupStarts.reserveCapacity(run)
            var groupCount = 0
            while index < chunks.count, groupChunks.count < run {
                groupStarts.append(groupCount)
                groupCount += chunks[index].elements.count
                groupChunks.append(chunks[index])
                index += 1
            }
            groups.append(Group(groupChunks, starts: groupStarts, count: groupCount))
            starts.append(storedCount)
            storedCount += groupCount
        }
    }

    /// The last index in `starts` whose start is at most `index`.
    @inlinable static func search(_ starts: [Int], for index: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The group and the chunk in it holding `index`, and the element's offset in the chunk.
    @inlinable func locate(_ index: Int) -> (group: Int, chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
        let group = Self.search(starts, for: index)
        let inGroup = index - starts[group]
        let groupStarts = groups[group].starts
        let chunk = Self.search(groupStarts, for: inGroup)
        return (group, chunk, inGroup - groupStarts[chunk])
    }

    /// Changes chunk `chunk` of group `group` with `change`, into a new chunk (split when too
    /// long, dropped when empty) in a new group (split when it has too many chunks, dropped
    /// when it has none), and moves the starts of the chunks and groups after it. Nothing is
    /// copied when this list alone holds the group and the chunk: each is let go (a stand-in
    /// takes its place, or the list's only group is taken out of it) before what it held is
    /// changed, which is then held once, and changed in place. When another holds them (a copy
    /// of this list, a diff's old version, a ``ChunkSums``), the group's list of chunks and the
    /// chunk's elements are copied.
    @inlinable mutating func changeChunk(group: Int, chunk: Int, _ change: (inout [Element]) -> Void) {
        var (chunks, chunkStarts, groupCount) = takeGroup(group)
        var elements = chunks[chunk].elements
        chunks[chunk] = chunks.count > 1 ? chunks[chunk == 0 ? 1 : 0] : Chunk([])
        let oldCount = elements.count
        change(&elements)
        let delta = elements.count - oldCount
        if elements.isEmpty {
            Self.replace(chunk, of: &chunks, starts: &chunkStarts, with: nil, and: nil, delta: delta)
        } else if elements.count > Self.chunkCapacity {
            let half = elements.count / 2
            Self.replace(chunk, of: &chunks, starts: &chunkStarts, with: (Chunk(Array(elements[..<half])), half), and: Chunk(Array(elements[half...])), delta: delta)
        } else {
            Self.replace(chunk, of: &chunks, starts: &chunkStarts, with: (Chunk(elements), elements.count), and: nil, delta: delta)
        }
        putGroup(chunks, starts: chunkStarts, count: groupCount + delta, at: group, delta: delta)
    }

    /// Puts `first` and `second` in the place of part `index` of `parts` (a chunk of a group, a
    /// group of the list), whose first elements' indices are `starts`: neither when the part is
    /// dropped, both when it was split, `first` holding `count` elements; then moves the
    /// starts of the parts after them by `delta`, what the part grew by.
    @inlinable static func replace<Part>(
        _ index: Int, of parts: inout [Part], starts: inout [Int], with first: (part: Part, count: Int)?, and second: Part?, delta: Int
    ) {
        var after = index
        if let first {
            parts[index] = first.part
            after += 1
            if let second {
                parts.insert(second, at: index + 1)
                starts.insert(starts[index] + first.count, at: index + 1)
                after += 1
            }
        } else {
            parts.remove(at: index)
            starts.remove(at: index)
        }
        if delta != 0 {
            for later in after ..< starts.count { starts[later] += delta }
        }
    }

    /// What group `group` holds, the group let go: another group stands in its place until
    /// ``putGroup(_:starts:count:at:delta:)``, or, when it is the list's only group, it is
    /// taken out of the list (no group is made to stand in).
    @inlinable mutating func takeGroup(_ group: Int) -> (chunks: [Chunk], starts: [Int], count: Int) {
        // Read in a closure of its own, so that nothing holds the group once it is replaced
        // below (and it goes, when this list alone held it).
        if groups.count == 1 {
            return { (taken: Group) in (taken.chunks, taken.starts, taken.count) }(groups.removeLast())
        }
        let parts = { (taken: Group) in (taken.chunks, taken.starts, taken.count) }(groups[group])
        groups[group] = groups[group == 0 ? 1 : 0]
        return parts
    }

    /// Puts a group of `chunks`, with their `starts` and `count` elements, in the place of group
    /// `group` (in two groups when there are too many chunks, in none when there are none),
    /// which grew by `delta` elements.
    @inlinable mutating func putGroup(_ chunks: [Chunk], starts chunkStarts: [Int], count groupCount: Int, at group: Int, delta: Int) {
        storedCount += delta
        // The list's only group was taken out of it (``takeGroup(_:)``).
        let taken = groups.count < starts.count
        if chunks.isEmpty {
            if taken {
                starts.remove(at: group)
            } else {
                Self.replace(group, of: &groups, starts: &starts, with: nil, and: nil, delta: delta)
            }
        } else if chunks.count > Self.groupCapacity {
            let half = chunks.count / 2
            let firstCount = chunkStarts[half]
            let first = Group(Array(chunks[..<half]), starts: Array(chunkStarts[..<half]), count: firstCount)
            let second = Group(Array(chunks[half...]), starts: chunkStarts[half...].map { $0 - firstCount }, count: groupCount - firstCount)
            if taken { groups.append(first) }
            Self.replace(group, of: &groups, starts: &starts, with: (first, firstCount), and: second, delta: delta)
        } else {
            let whole = Group(chunks, starts: chunkStarts, count: groupCount)
            if taken { groups.append(whole) }
            Self.replace(group, of: &groups, starts: &starts, with: (whole, groupCount), and: nil, delta: delta)
        }
    }
}

extension ChunkedArray {
    /// The chunks of a run of groups: one group's own list (what changing one element leaves),
    /// shared, not copied; else the lists one after the other.
    @inlinable
    func chunks(ofGroups range: Range<Int>) -> [Chunk] {
        if range.count == 1 { return groups[range.lowerBound].chunks }
        var result: [Chunk] = []
        for group in range { result.append(contentsOf: groups[group].chunks) }
        return result
    }

    /// The elements of a run of chunks: one chunk's own array, shared, not copied; else the
    /// arrays one after the other.
    @inlinable
    static func elements(of chunks: ArraySlice<Chunk>) -> [Element] {
        if chunks.count == 1 { return chunks[chunks.startIndex].elements }
        var result: [Element] = []
        for chunk in chunks { result.append(contentsOf: chunk.elements) }
        return result
    }

    /// How many objects at the start and, after those, at the end two lists share, the same
    /// objects: their references compared as the words they are stored as (an array of a
    /// generic class, indexed in code not specialized for it, retains and releases every
    /// object it looks at), a word at a time.
    @inlinable
    static func sharedEnds<Object: AnyObject>(_ old: [Object], _ new: [Object]) -> (prefix: Int, suffix: Int) {
        old.withUnsafeBufferPointer { oldObjects in
            new.withUnsafeBufferPointer { newObjects in
                oldObjects.withMemoryRebound(to: UInt.self) { oldWords in
                    newObjects.withMemoryRebound(to: UInt.self) { newWords in
                        let shorter = Swift.min(oldWords.count, newWords.count)
                        var prefix = 0
                        while prefix < shorter, oldWords[prefix] == newWords[prefix] { prefix &+= 1 }
                        var suffix = 0
                        while suffix < shorter &- prefix, oldWords[oldWords.count &- 1 &- suffix] == newWords[newWords.count &- 1 &- suffix] { suffix &+= 1 }
                        return (prefix, suffix)
                    }
                }
            }
        }
    }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(position: Int) -> Element {
        get {
            let (group, chunk, offset) = locate(position)
            return groups[group].chunks[chunk].elements[offset]
        }
        set {
            let (group, chunk, offset) = locate(position)
            changeChunk(group: group, chunk: chunk) { $0[offset] = newValue }
        }
    }

    /// Walks the chunks, without a search per element. (Inlinable, so that a loop over an
    /// app's list is specialized for its element where it is written: otherwise each step
    /// looks up the chunk type's generic metadata, some 330 instructions, callgrind.)
    public struct Iterator: IteratorProtocol {
        @usableFromInline let groups: [Group]
        @usableFromInline var group = 0
        /// The next chunk of the group, and the elements of the chunk being walked.
        @usableFromInline var chunk = 0
        @usableFromInline var elements: [Element] = []
        @usableFromInline var offset = 0

        @inlinable init(groups: [Group]) {
            self.groups = groups
        }

        @inlinable public mutating func next() -> Element? {
            if offset < elements.count {
                defer { offset += 1 }
                return elements[offset]
            }
            return nextChunk()
        }

        /// The first element of the next chunk, which becomes the one walked.
        @inlinable mutating func nextChunk() -> Element? {
            while group < groups.count {
                let chunks = groups[group].chunks
                if chunk < chunks.count {
                    elements = chunks[chunk].elements
                    chunk += 1
                    if !elements.isEmpty {
                        offset = 1
                        return elements[0]
                    }
                } else {
                    group += 1
                    chunk = 0
                }
            }
            return nil
        }
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(groups: groups)
    }
}

extension ChunkedArray: RangeReplaceableCollection {
    @inlinable public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "range \(subrange) out of bounds 0..<\(count)")
        if subrange.isEmpty, newElements.isEmpty { return }
        // Within one chunk (an insert, a removal, an append): only that chunk changes.
        if !groups.isEmpty {
            let (group, chunk, offset): (Int, Int, Int)
            if subrange.lowerBound == count {
                group = groups.count - 1
                chunk = groups[group].chunks.count - 1
                offset = groups[group].chunks[chunk].elements.count
            } else {
                (group, chunk, offset) = locate(subrange.lowerBound)
            }
            let chunkCount = groups[group].chunks[chunk].elements.count
            if offset + subrange.count <= chunkCount, newElements.count <= Self.chunkCapacity {
                changeChunk(group: group, chunk: chunk) { $0.replaceSubrange(offset ..< offset + subrange.count, with: newElements) }
                return
            }
        }
        // Anything larger: rebuilt (it costs what it changes, and more).
        var all = Array(self)
        all.replaceSubrange(subrange, with: newElements)
        self = ChunkedArray(all)
    }

    /// Adds `newElement` at the end: into the last chunk while it has room (in place when this
    /// list alone holds it), else in a chunk of its own, in the last group while it has room,
    /// else in a group of its own. (The collection's default goes through
    /// ``replaceSubrange(_:with:)`` with a generic one-element collection, which costs ten
    /// times as much.)
    /// - Parameter newElement: the element.
    @inlinable public mutating func append(_ newElement: Element) {
        let group = groups.count - 1
        guard group >= 0, groups[group].chunks.count < Self.groupCapacity || groups[group].chunks[Self.groupCapacity - 1].elements.count < Self.chunkCapacity else {
            groups.append(Group([Chunk([newElement])], starts: [0], count: 1))
            starts.append(storedCount)
            storedCount += 1
            return
        }
        let chunk = groups[group].chunks.count - 1
        if groups[group].chunks[chunk].elements.count < Self.chunkCapacity {
            changeChunk(group: group, chunk: chunk) { $0.append(newElement) }
        } else {
            var (chunks, chunkStarts, groupCount) = takeGroup(group)
            chunks.append(Chunk([newElement]))
            chunkStarts.append(groupCount)
            putGroup(chunks, starts: chunkStarts, count: groupCount + 1, at: group, delta: 1)
        }
    }

    public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        self = ChunkedArray()
    }
}

extension ChunkedArray: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension ChunkedArray: Equatable where Element: Equatable {
    /// Shared groups and chunks are equal without looking inside: two lists cut the same way are
    /// compared group by group and chunk by chunk, only the chunks that are not shared element
    /// by element (a list after one change against the list before costs one group's list of
    /// chunks and one chunk's comparison, whatever its length).
    @inlinable
    public static func == (lhs: ChunkedArray, rhs: ChunkedArray) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.starts == rhs.starts else { return lhs.elementsEqual(rhs) }
        // By index, not `zip`: a generic zip has the runtime make its types at every call.
        for group in lhs.groups.indices where lhs.groups[group] !== rhs.groups[group] {
            let left = lhs.groups[group]
            let right = rhs.groups[group]
            guard left.starts == right.starts else {
                guard sameElements(elements(of: left.chunks[...]), elements(of: right.chunks[...])) else { return false }
                continue
            }
            for chunk in left.chunks.indices where left.chunks[chunk] !== right.chunks[chunk] {
                guard sameElements(left.chunks[chunk].elements, right.chunks[chunk].elements) else { return false }
            }
        }
        return true
    }

    /// Whether two runs of elements are equal, each pair compared bit for bit first, as the
    /// diff compares them (``ArrayDiff/commonEnds(_:_:orEqual:)``), and with `==` only when
    /// their bits differ: the elements of a chunk that one change copied have the same bits
    /// but for the changed one.
    @inlinable
    static func sameElements(_ left: [Element], _ right: [Element]) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                guard let leftStart = left.baseAddress, let rightStart = right.baseAddress else { return true }
                let size = MemoryLayout<Element>.size
                for index in 0 ..< left.count {
                    if !ArrayDiff.sameBytes(leftStart + index, rightStart + index, count: size), !ArrayDiff.equal(leftStart + index, rightStart + index) {
                        return false
                    }
                }
                return true
            }
        }
    }
}

extension ChunkedArray: Hashable where Element: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}
extension ChunkedArray.Chunk: Sendable where Element: Sendable {}
extension ChunkedArray.Group: Sendable where Element: Sendable {}

extension ChunkedArray: Decodable where Element: Decodable {
    /// From a JSON array, as an `Array` is (the same container, the same errors), the elements
    /// decoded straight into chunks half full: not into one array first, cut and copied.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var chunks: [Chunk] = []
        var run: [Element] = []
        let length = Self.chunkCapacity / 2
        while !container.isAtEnd {
            if run.isEmpty { run.reserveCapacity(length) }
            run.append(try container.decode(Element.self))
            if run.count == length {
                chunks.append(Chunk(run))
                run = []
            }
        }
        if !run.isEmpty { chunks.append(Chunk(run)) }
        self.init(chunks: chunks)
    }
}

extension ChunkedArray: Encodable where Element: Encodable {
    /// A JSON array, as an `Array`'s.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self { try container.encode(element) }
    }
}

extension ChunkedArray: CustomStringConvertible {
    public var description: String { Array(self).description }
}

extension ChunkedArray: Diffable where Element: Identifiable & Encodable & Equatable {
    /// As an `Array`'s (see ``ArrayDiff``), but the groups and then the chunks both versions
    /// share at either end are skipped without looking inside: after one action, only the
    /// groups' words, the changed group's chunks' words and the chunk it changed are compared.
    /// (Inlinable, like ``ArrayDiff``, so that it is compiled for the app's element type: as
    /// generic code, every element it looks at would be copied and compared through witnesses.)
    @inlinable
    public func appendPatch(from old: ChunkedArray, at path: JSONPointer, to patch: inout JSONPatch) throws {
        // The groups both share at either end, then the chunks both share at either end of
        // the groups left.
        let (group, sharedGroupsAtEnd) = Self.sharedEnds(old.groups, groups)
        let oldChunks = old.chunks(ofGroups: group ..< old.groups.count - sharedGroupsAtEnd)
        let newChunks = chunks(ofGroups: group ..< groups.count - sharedGroupsAtEnd)
        let (chunk, sharedChunksAtEnd) = Self.sharedEnds(oldChunks, newChunks)
        var prefix = group < starts.count ? starts[group] : count
        for index in 0 ..< chunk { prefix += newChunks[index].elements.count }
        let oldMiddle = Self.elements(of: oldChunks[chunk ..< oldChunks.count - sharedChunksAtEnd])
        let newMiddle = Self.elements(of: newChunks[chunk ..< newChunks.count - sharedChunksAtEnd])
        if oldMiddle.isEmpty, newMiddle.isEmpty { return }
        var operations = JSONPatch()
        try ArrayDiff.appendPatch(
            from: oldMiddle, to: newMiddle, at: path, offset: prefix, totalCount: count, into: &operations,
            diffElement: { old, new, path, patch in
                if old.id == new.id {
                    try FieldDiff.appendChange(from: old, to: new, at: path, into: &patch)
                } else {
                    patch.append(.replace(path, try JSONValue(encoding: new)))
                }
            },
            encode: { try JSONValue(encoding: $0) },
            encodeWhole: { try JSONValue(encoding: self) })
        patch.append(contentsOf: operations)
    }
}

/// Per-chunk and per-group results of a ``ChunkedArray/sum(_:cache:)``, kept for the groups
/// seen last time and their chunks: a list that changed in one chunk is summed again at the
/// cost of that chunk and of its group's list of chunks.
public struct ChunkSums {
    /// Each group's sum and its chunks, by the group (held, so that its identity is not reused).
    fileprivate var groups: [ObjectIdentifier: (group: AnyObject, sum: Int, chunks: [ObjectIdentifier])] = [:]
    /// Each chunk's sum, by the chunk (held), for the chunks of the groups above.
    fileprivate var chunks: [ObjectIdentifier: (chunk: AnyObject, sum: Int)] = [:]

    public init() {}
}

extension ChunkedArray {
    /// The sum of `measure` over the elements (how many are done, say), for a view that shows
    /// it after every change: the groups and chunks a copy shares with the list last summed
    /// with `cache` are not gone through again, so a change to one element costs one chunk's
    /// work and a lookup per chunk of its group and per group, not a pass over the list.
    /// - Parameters:
    ///   - measure: what each element counts for; it must not change for an element that did
    ///     not change.
    ///   - cache: the sums of the groups and chunks seen last time; it keeps this time's.
    /// - Returns: the sum over every element.
    public func sum(_ measure: (Element) -> Int, cache: inout ChunkSums) -> Int {
        var total = 0
        var seen: [ObjectIdentifier: (group: AnyObject, sum: Int, chunks: [ObjectIdentifier])] = [:]
        seen.reserveCapacity(groups.count)
        // The chunks of groups summed now, which the chunks of the groups gone may be among.
        var summedChunks: Set<ObjectIdentifier> = []
        for group in groups {
            let id = ObjectIdentifier(group)
            if let known = cache.groups[id] {
                seen[id] = known
                total += known.sum
                continue
            }
            var groupSum = 0
            var chunkIDs: [ObjectIdentifier] = []
            chunkIDs.reserveCapacity(group.chunks.count)
            for chunk in group.chunks {
                let chunkID = ObjectIdentifier(chunk)
                let sum: Int
                if let known = cache.chunks[chunkID] {
                    sum = known.sum
                } else {
                    sum = chunk.elements.reduce(0) { $0 + measure($1) }
                    cache.chunks[chunkID] = (chunk, sum)
                }
                chunkIDs.append(chunkID)
                summedChunks.insert(chunkID)
                groupSum += sum
            }
            seen[id] = (group, groupSum, chunkIDs)
            total += groupSum
        }
        for (id, gone) in cache.groups where seen[id] == nil {
            for chunkID in gone.chunks where !summedChunks.contains(chunkID) {
                cache.chunks[chunkID] = nil
            }
        }
        cache.groups = seen
        return total
    }
}
