import ActorNode
import Testing
@testable import Wire

/// A list long enough for many groups of chunks behaves as an `Array` through every split and
/// drop of a chunk or a group, its copies keep their own elements, and its kept sums stay the
/// list's. (Its patches over many groups: ChunkedArrayTests.patchesApply.)
@Suite("ChunkedArray groups")
struct ChunkedArrayGroupTests {
    typealias Row = ChunkedArrayTests.Row

    /// The list's structure holds: each group's count and starts are its chunks', the list's
    /// starts its groups', no chunk or group is empty or over its capacity.
    static func wellFormed(_ list: ChunkedArray<Row>) -> Bool {
        var start = 0
        for (index, group) in list.groups.enumerated() {
            guard list.starts[index] == start, !group.chunks.isEmpty, group.chunks.count <= ChunkedArray<Row>.groupCapacity else { return false }
            var inGroup = 0
            for (chunkIndex, chunk) in group.chunks.enumerated() {
                guard group.starts[chunkIndex] == inGroup, !chunk.elements.isEmpty, chunk.elements.count <= ChunkedArray<Row>.chunkCapacity else { return false }
                inGroup += chunk.elements.count
            }
            guard group.count == inGroup else { return false }
            start += inGroup
        }
        return list.groups.count == list.starts.count && start == list.count
    }

    @Test("inserts at one place split chunks and groups; removals there drop them; the list is the model's throughout")
    func splitsAndDrops() {
        var model = (0 ..< 5000).map { Row(id: $0, text: "r\($0)") }
        var list = ChunkedArray(model)
        var random = SeededRandom(seed: 31)
        var copies: [(ChunkedArray<Row>, [Row])] = []
        // 20,000 inserts near one place: its chunk splits again and again, then its group.
        for step in 0 ..< 20000 {
            let at = 2500 + Int(random.next() % 64)
            let row = Row(id: 10000 + step, text: "n")
            model.insert(row, at: at)
            list.insert(row, at: at)
            if step % 1999 == 0 { copies.append((list, model)) }
        }
        #expect(list.groups.count > 5)
        #expect(Self.wellFormed(list))
        #expect(list.elementsEqual(model))
        // Removals from the front: chunks and then whole groups go.
        for step in 0 ..< 15000 {
            let at = Int(random.next() % 200)
            #expect(model.remove(at: at) == list.remove(at: at))
            if step % 2999 == 0 { copies.append((list, model)) }
        }
        #expect(Self.wellFormed(list))
        #expect(list.elementsEqual(model))
        for index in stride(from: 0, to: model.count, by: 37) {
            #expect(list[index] == model[index])
        }
        for (copy, elements) in copies {
            #expect(copy.elementsEqual(elements))
            #expect(Self.wellFormed(copy))
        }
        // Everything removed, a group at a time at the end.
        while !model.isEmpty {
            #expect(model.removeLast() == list.removeLast())
        }
        #expect(list.isEmpty && list.groups.isEmpty && Self.wellFormed(list))
    }

    @Test("appended one by one, the chunks and groups fill up before new ones start")
    func appendsFill() {
        var list = ChunkedArray<Row>()
        let count = ChunkedArray<Row>.chunkCapacity * ChunkedArray<Row>.groupCapacity * 2 + 5
        for id in 0 ..< count { list.append(Row(id: id, text: "a")) }
        #expect(Self.wellFormed(list))
        #expect(list.groups.count == 3)
        #expect(list.groups[0].chunks.count == ChunkedArray<Row>.groupCapacity)
        #expect(list.groups[0].chunks.allSatisfy { $0.elements.count == ChunkedArray<Row>.chunkCapacity })
        #expect(list.elementsEqual((0 ..< count).map { Row(id: $0, text: "a") }))
    }

    @Test("the kept sum of a list of many groups is the list's after edits, copies and splits")
    func sumsAcrossGroups() {
        var random = SeededRandom(seed: 41)
        var list = ChunkedArray((0 ..< 20000).map { Row(id: $0, text: "") })
        var cache = ChunkSums()
        var kept: [ChunkedArray<Row>] = []
        for step in 0 ..< 3000 {
            switch random.next() % 4 {
            case 0: list[Int(random.next() % UInt64(list.count))].id += 3
            case 1: list.insert(Row(id: step, text: ""), at: Int(random.next() % UInt64(list.count + 1)))
            case 2: list.remove(at: Int(random.next() % UInt64(list.count)))
            default:
                for _ in 0 ..< 150 { list.insert(Row(id: 1, text: ""), at: 10000) }
            }
            if step % 50 == 0 { kept.append(list) }
            let expected = list.reduce(0) { $0 + $1.id % 7 }
            guard list.sum({ $0.id % 7 }, cache: &cache) == expected else {
                Issue.record("step \(step): the kept sum differs from the list's \(expected)")
                return
            }
        }
        // A list summed before, summed again with the same cache: the sum is still its own.
        let earlier = kept[kept.count / 2]
        #expect(earlier.sum({ $0.id % 7 }, cache: &cache) == earlier.reduce(0) { $0 + $1.id % 7 })
        #expect(list.sum({ $0.id % 7 }, cache: &cache) == list.reduce(0) { $0 + $1.id % 7 })
    }
}

/// A change to a list that no copy shares is made where its elements are: no group's list of
/// chunks and no chunk's elements are copied.
@Suite("ChunkedArray in place")
struct ChunkedArrayInPlaceTests {
    @Test("a change in a list no copy shares keeps the chunk's and the group's storage; with a copy it does not", arguments: [100, 10000])
    func inPlace(count: Int) {
        var list = ChunkedArray((0 ..< count).map { ChunkedArrayTests.Row(id: $0, text: "r") })
        let at = count / 2
        func storage() -> (chunks: UnsafeRawPointer?, elements: UnsafeRawPointer?) {
            let (group, chunk, _) = list.locate(at)
            return (
                list.groups[group].chunks.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
                list.groups[group].chunks[chunk].elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
        }
        list[at].text = "changed"
        let before = storage()
        list[at].text = "again"
        list[at - 1].id = -1
        #expect(storage() == before)
        var copy = list
        list[at].text = "apart"
        let after = storage()
        // The copy still holds the storage before, so the list's cannot be at its address.
        #expect(after.chunks != before.chunks && after.elements != before.elements)
        #expect(copy[at].text == "again" && list[at].text == "apart")
        copy[0].text = "copy's"
        #expect(list[0].text == "r")
    }
}
