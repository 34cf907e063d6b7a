/// An array for the long lists of an app's state: the elements are kept in chunks of a few
/// hundred, each shared between copies until one of them changes it. So a copy of the state
/// (the core keeps the state before each action, to describe the change) costs a copy of the
/// chunk list, a change costs a copy of one chunk (or nothing, when no copy shares it: it is
/// changed in place), and the diff of two versions skips every chunk they share: an action's
/// cost does not grow with the length of the list.
///
/// It is a `RandomAccessCollection`, `MutableCollection` and `RangeReplaceableCollection` with
/// `Int` indices from 0, like `Array`, and its JSON is an array's; reducers written against an
/// `Array` work unchanged. Indexing costs a binary search over the chunks.
public struct ChunkedArray<Element> {
    /// Elements a chunk holds at most before it is split in two.
    @inlinable static var chunkCapacity: Int { 512 }

    /// A run of elements, never changed once made (a change makes a new chunk), so that copies
    /// share it safely.
    @usableFromInline
    final class Chunk {
        @usableFromInline let elements: [Element]

        @inlinable init(_ elements: [Element]) {
            self.elements = elements
        }
    }

    @usableFromInline var chunks: [Chunk]
    /// The index of each chunk's first element.
    @usableFromInline var starts: [Int]
    /// How many elements there are (``count``).
    @usableFromInline var storedCount: Int
    @inlinable public var count: Int { storedCount }

    /// An empty list.
    public init() {
        chunks = []
        starts = []
        storedCount = 0
    }

    /// The elements of `elements`, in order.
    /// - Parameter elements: the elements.
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        var run: [Element] = []
        run.reserveCapacity(Self.chunkCapacity / 2)
        for element in elements {
            run.append(element)
            if run.count == Self.chunkCapacity / 2 {
                appendChunk(run)
                run.removeAll(keepingCapacity: true)
            }
        }
        if !run.isEmpty { appendChunk(run) }
    }

    /// The elements of an array, in order, cut into chunks by index. (The initializer above,
    /// called from code generic over the element, as decoding is, looks up the sequence's
    /// iterator type by its name at its first call, and the runtime's first check of that
    /// type's requirements searches all of the executable's conformance records: 110,000
    /// instructions of a one-shot `state`, callgrind.)
    /// - Parameter elements: the elements.
    public init(_ elements: [Element]) {
        self.init()
        let run = Self.chunkCapacity / 2
        var start = 0
        while start < elements.count {
            let end = Swift.min(start + run, elements.count)
            appendChunk(Array(elements[start ..< end]))
            start = end
        }
    }

    @inlinable mutating func appendChunk(_ elements: [Element]) {
        starts.append(storedCount)
        chunks.append(Chunk(elements))
        storedCount += elements.count
    }

    /// The chunk holding `index`, and the element's offset in it.
    @inlinable func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        precondition(index >= 0 && index < count, "index \(index) out of range 0..<\(count)")
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        return (low, index - starts[low])
    }

    /// Changes chunk `chunk` with `change`, into a new chunk (split when too long, dropped
    /// when empty), and moves the starts of the chunks after it. The elements are copied only
    /// when something else holds the old chunk (a copy of this list, a diff's old version, a
    /// ``ChunkSums``): the old chunk is let go before `change` runs, and when this list alone
    /// held it, its elements are then held once, and changed in place.
    @inlinable mutating func changeChunk(_ chunk: Int, _ change: (inout [Element]) -> Void) {
        var elements = chunks[chunk].elements
        let oldCount = elements.count
        chunks[chunk] = Chunk([])
        change(&elements)
        replaceChunk(chunk, with: elements, oldCount: oldCount)
    }

    /// Replaces chunk `chunk`, which held `oldCount` elements, by `elements` (split when too
    /// long, dropped when empty), and moves the starts of the chunks after it.
    @inlinable mutating func replaceChunk(_ chunk: Int, with elements: [Element], oldCount: Int) {
        let delta = elements.count - oldCount
        if elements.isEmpty {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
        } else if elements.count > Self.chunkCapacity {
            let half = elements.count / 2
            chunks[chunk] = Chunk(Array(elements[..<half]))
            chunks.insert(Chunk(Array(elements[half...])), at: chunk + 1)
            starts.insert(starts[chunk] + half, at: chunk + 1)
            for later in chunk + 2 ..< starts.count { starts[later] += delta }
            storedCount += delta
            return
        } else {
            chunks[chunk] = Chunk(elements)
        }
        if delta != 0 {
            for later in chunk + (elements.isEmpty ? 0 : 1) ..< starts.count { starts[later] += delta }
            storedCount += delta
        }
    }
}

extension ChunkedArray {
    /// The elements of a run of chunks, copied chunk by chunk.
    @inlinable
    func elements(ofChunks range: Range<Int>) -> [Element] {
        // One chunk (what changing one element leaves): its own array, shared, not copied.
        if range.count == 1 { return chunks[range.lowerBound].elements }
        var result: [Element] = []
        for chunk in range { result.append(contentsOf: chunks[chunk].elements) }
        return result
    }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(position: Int) -> Element {
        get {
            let (chunk, offset) = locate(position)
            return chunks[chunk].elements[offset]
        }
        set {
            let (chunk, offset) = locate(position)
            changeChunk(chunk) { $0[offset] = newValue }
        }
    }

    /// Walks the chunks, without a search per element. (Inlinable, so that a loop over an
    /// app's list is specialized for its element where it is written: otherwise each step
    /// looks up the chunk type's generic metadata, some 330 instructions, callgrind.)
    public struct Iterator: IteratorProtocol {
        @usableFromInline let chunks: [Chunk]
        @usableFromInline var chunk = 0
        @usableFromInline var offset = 0

        @inlinable init(chunks: [Chunk]) {
            self.chunks = chunks
        }

        @inlinable public mutating func next() -> Element? {
            while chunk < chunks.count {
                let elements = chunks[chunk].elements
                if offset < elements.count {
                    defer { offset += 1 }
                    return elements[offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(chunks: chunks)
    }
}

extension ChunkedArray: RangeReplaceableCollection {
    @inlinable public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "range \(subrange) out of bounds 0..<\(count)")
        if subrange.isEmpty, newElements.isEmpty { return }
        // Within one chunk (an insert, a removal, an append): only that chunk changes.
        if !chunks.isEmpty {
            let (chunk, offset) = subrange.lowerBound == count ? (chunks.count - 1, chunks[chunks.count - 1].elements.count) : locate(subrange.lowerBound)
            let chunkCount = chunks[chunk].elements.count
            if offset + subrange.count <= chunkCount, newElements.count <= Self.chunkCapacity {
                changeChunk(chunk) { $0.replaceSubrange(offset ..< offset + subrange.count, with: newElements) }
                return
            }
        }
        // Anything larger: rebuilt (it costs what it changes, and more).
        var all = Array(self)
        all.replaceSubrange(subrange, with: newElements)
        self = ChunkedArray(all)
    }

    /// Adds `newElement` at the end: into the last chunk while it has room (in place when this
    /// list alone holds it), else in a chunk of its own. (The collection's default goes through
    /// ``replaceSubrange(_:with:)`` with a generic one-element collection, which costs ten
    /// times as much.)
    /// - Parameter newElement: the element.
    @inlinable public mutating func append(_ newElement: Element) {
        let last = chunks.count - 1
        guard last >= 0, chunks[last].elements.count < Self.chunkCapacity else {
            appendChunk([newElement])
            return
        }
        changeChunk(last) { $0.append(newElement) }
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
    /// Shared chunks are equal without looking inside: two lists cut the same way are compared
    /// chunk by chunk, only the chunks that are not shared element by element (a list after one
    /// change against the list before costs one chunk's comparison, whatever its length).
    public static func == (lhs: ChunkedArray, rhs: ChunkedArray) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.starts == rhs.starts, lhs.chunks.count == rhs.chunks.count else { return lhs.elementsEqual(rhs) }
        // By index, not `zip`: a generic zip has the runtime make its types at every call.
        for index in lhs.chunks.indices where lhs.chunks[index] !== rhs.chunks[index] {
            guard lhs.chunks[index].elements == rhs.chunks[index].elements else { return false }
        }
        return true
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

extension ChunkedArray: Decodable where Element: Decodable {
    /// From a JSON array, as an `Array`.
    public init(from decoder: any Decoder) throws {
        self.init(try [Element](from: decoder))
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
    /// As an `Array`'s (see ``ArrayDiff``), but the chunks both versions share at either end are
    /// skipped without looking inside: after one action, only the chunk it changed is compared.
    /// (Inlinable, like ``ArrayDiff``, so that it is compiled for the app's element type: as
    /// generic code, every element it looks at would be copied and compared through witnesses.)
    @inlinable
    public func appendPatch(from old: ChunkedArray, at path: JSONPointer, to patch: inout JSONPatch) throws {
        // The chunks both share at either end, the same objects: their references compared
        // as the words they are stored as (an array of a generic class, indexed in code not
        // specialized for it, retains and releases every chunk it looks at).
        let (chunk, sharedAtEnd) = old.chunks.withUnsafeBufferPointer { oldChunks in
            chunks.withUnsafeBufferPointer { newChunks in
                oldChunks.withMemoryRebound(to: UInt.self) { oldWords in
                    newChunks.withMemoryRebound(to: UInt.self) { newWords in
                        ArrayDiff.commonEnds(oldWords, newWords, orEqual: nil)
                    }
                }
            }
        }
        let prefix = chunk < starts.count ? starts[chunk] : count
        let oldMiddle = old.elements(ofChunks: chunk ..< old.chunks.count - sharedAtEnd)
        let newMiddle = elements(ofChunks: chunk ..< chunks.count - sharedAtEnd)
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

/// Per-chunk results of a ``ChunkedArray/sum(_:cache:)``, kept for the chunks seen last time: a
/// list that changed in one chunk is summed again at the cost of that chunk.
public struct ChunkSums {
    /// Each chunk's sum, by the chunk (held, so that its identity is not reused).
    fileprivate var sums: [ObjectIdentifier: (chunk: AnyObject, sum: Int)] = [:]

    public init() {}
}

extension ChunkedArray {
    /// The sum of `measure` over the elements (how many are done, say), for a view that shows
    /// it after every change: the chunks a copy shares with the list last summed with `cache`
    /// are not gone through again, so a change to one element costs one chunk's work and a
    /// lookup per chunk, not a pass over the list.
    /// - Parameters:
    ///   - measure: what each element counts for; it must not change for an element that did
    ///     not change.
    ///   - cache: the sums of the chunks seen last time; it keeps this time's.
    /// - Returns: the sum over every element.
    public func sum(_ measure: (Element) -> Int, cache: inout ChunkSums) -> Int {
        var total = 0
        var seen: [ObjectIdentifier: (chunk: AnyObject, sum: Int)] = [:]
        seen.reserveCapacity(chunks.count)
        for chunk in chunks {
            let id = ObjectIdentifier(chunk)
            let sum = cache.sums[id]?.sum ?? chunk.elements.reduce(0) { $0 + measure($1) }
            seen[id] = (chunk, sum)
            total += sum
        }
        cache.sums = seen
        return total
    }
}
