import ActorNode
import Synchronization
import Testing
@testable import Wire

/// A chunked array behaves as an `Array` does, and its diff looks only at what changed.
@Suite("ChunkedArray")
struct ChunkedArrayTests {
    struct Row: Codable, Sendable, Equatable, Identifiable, Diffable {
        var id: Int
        var text: String
    }

    @Test("made from an array of any length, it holds what one made from any sequence holds", arguments: [0, 1, 255, 256, 257, 600, 1200])
    func fromAnArray(count: Int) throws {
        let rows = (0 ..< count).map { Row(id: $0, text: "r\($0)") }
        let fromArray = ChunkedArray(rows)
        let fromSequence = ChunkedArray(AnySequence(rows))
        #expect(fromArray.count == count)
        #expect(Array(fromArray) == rows)
        #expect(Array(fromArray) == Array(fromSequence))
        #expect(try WireJSON.encode(fromArray) == WireJSON.encode(rows))
        #expect(try WireJSON.decode(ChunkedArray<Row>.self, from: WireJSON.encode(rows)).elementsEqual(rows))
    }

    @Test("what does not decode as an array does not decode as a chunked array, with the array's error", arguments: [#"{"a":1}"#, #"[1,2,"x"]"#, "[1,2", "null", #"[1,null]"#])
    func decodingErrors(text: String) {
        let arrayError = #expect(throws: (any Error).self) { try WireJSON.decode([Int].self, from: Array(text.utf8)) }
        let chunkedError = #expect(throws: (any Error).self) { try WireJSON.decode(ChunkedArray<Int>.self, from: Array(text.utf8)) }
        #expect(chunkedError.map { describeDecodingFailure($0) } == arrayError.map { describeDecodingFailure($0) })
    }

    @Test("random edits give the same elements, count and JSON as an Array's")
    func behavesAsAnArray() throws {
        var random = SeededRandom(seed: 7)
        var model: [Row] = []
        var chunked = ChunkedArray<Row>()
        var nextId = 1
        for step in 0 ..< 6000 {
            let choice = random.next() % 10
            if model.isEmpty || choice < 4 {
                let row = Row(id: nextId, text: "r\(nextId)")
                nextId += 1
                if choice % 2 == 0 {
                    model.append(row)
                    chunked.append(row)
                } else {
                    let at = Int(random.next() % UInt64(model.count + 1))
                    model.insert(row, at: at)
                    chunked.insert(row, at: at)
                }
            } else if choice < 6 {
                let at = Int(random.next() % UInt64(model.count))
                #expect(model.remove(at: at) == chunked.remove(at: at))
            } else if choice < 9 {
                let at = Int(random.next() % UInt64(model.count))
                model[at].text += "!"
                chunked[at].text += "!"
            } else if step % 500 == 0 {
                let lower = Int(random.next() % UInt64(model.count))
                let upper = lower + Int(random.next() % UInt64(model.count - lower + 1))
                let replacement = (0 ..< 700).map { Row(id: nextId + $0, text: "bulk") }
                nextId += 700
                model.replaceSubrange(lower ..< upper, with: replacement)
                chunked.replaceSubrange(lower ..< upper, with: replacement)
            }
            guard chunked.count == model.count, step % 100 != 0 || chunked.elementsEqual(model) else {
                Issue.record("step \(step): differs from the model")
                return
            }
        }
        #expect(chunked.elementsEqual(model))
        for index in stride(from: 0, to: model.count, by: 97) {
            #expect(chunked[index] == model[index])
        }
        #expect(try WireJSON.encode(chunked) == WireJSON.encode(model))
        #expect(try WireJSON.decode(ChunkedArray<Row>.self, from: WireJSON.encode(model)) == chunked)
        chunked.removeAll()
        #expect(chunked.isEmpty && chunked == [])
    }

    @Test("a change made in place when no copy shares the chunk: copies taken before and after keep their own elements")
    func copiesStayApart() throws {
        var list = ChunkedArray<Row>((1 ... 300).map { Row(id: $0, text: "r\($0)") })
        var copies: [(ChunkedArray<Row>, [Row])] = []
        var random = SeededRandom(seed: 11)
        var sums = ChunkSums()
        for step in 0 ..< 2000 {
            // Now and then a copy, or a cache of sums holding the chunks, as the core's state
            // before an action and a screen's counts do.
            if step % 97 == 0 { copies.append((list, Array(list))) }
            if step % 131 == 0 { _ = list.sum({ $0.id }, cache: &sums) }
            switch random.next() % 3 {
            case 0: list.append(Row(id: 1000 + step, text: "a"))
            case 1: list[Int(random.next() % UInt64(list.count))].text += "!"
            default: list.remove(at: Int(random.next() % UInt64(list.count)))
            }
        }
        for (copy, elements) in copies { #expect(copy.elementsEqual(elements)) }
        #expect(list.sum({ $0.id }, cache: &sums) == list.reduce(0) { $0 + $1.id })
    }

    @Test("its patch takes the old JSON to the new after any edit, and == agrees with the elements", arguments: [(1200, false), (12000, true)])
    func patchesApply(count: Int, bursts: Bool) throws {
        var random = SeededRandom(seed: 11)
        var current = ChunkedArray((1 ... count).map { Row(id: $0, text: "r\($0)") })
        var nextId = count + 1
        for step in 0 ..< 150 {
            let old = current
            // With bursts, now and then many inserts at one place, so that chunks and groups
            // split between the two versions.
            let burst = bursts && step % 5 == 0
            switch random.next() % 4 {
            case 0:
                for _ in 0 ..< (burst ? 1 + Int(random.next() % 300) : 1) {
                    current.insert(Row(id: nextId, text: "new"), at: burst ? count / 2 : Int(random.next() % UInt64(current.count + 1)))
                    nextId += 1
                }
            case 1:
                current.remove(at: Int(random.next() % UInt64(current.count)))
            case 2:
                current[Int(random.next() % UInt64(current.count))].text = "edited \(nextId)"
                nextId += 1
            default:
                let row = current.remove(at: Int(random.next() % UInt64(current.count)))
                current.insert(row, at: Int(random.next() % UInt64(current.count + 1)))
            }
            var document = try JSONValue(encoding: old)
            let patch = try current.patch(from: old)
            #expect(burst || patch.count <= 2)
            try document.apply(patch)
            guard document == (try JSONValue(encoding: current)) else {
                Issue.record("the patch \(patch) does not give the new list")
                return
            }
            #expect((current == old) == current.elementsEqual(old))
        }
    }

    @Test("== compares the chunks that are not shared, and lists cut differently element by element")
    func equality() {
        let base = ChunkedArray(0 ..< 2000)
        var changed = base
        changed[1500] = -1
        #expect(changed != base)
        changed[1500] = 1500
        // Equal again, in a chunk of its own.
        #expect(changed == base)
        var appended = ChunkedArray<Int>()
        for value in 0 ..< 2000 { appended.append(value) }
        // The same elements, cut into chunks at other places.
        #expect(appended == base)
        appended[0] = 7
        #expect(appended != base)
        #expect(ChunkedArray(0 ..< 1999) != base)
    }

    @Test("after one change, the diff asks == of the changed element alone: shared chunks are skipped, unchanged copies are the same bits")
    func diffSkipsSharedChunks() throws {
        Counted.comparisons.withLock { $0 = 0 }
        var rows = ChunkedArray((1 ... 100_000).map { Counted(id: $0, value: 0) })
        let old = rows
        rows[50_000].value = 1
        let patch = try rows.patch(from: old)
        #expect(patch.count == 1)
        // Counted is two words with no padding, so the copies in the changed chunk have the
        // same bits as before (ArrayDiff.commonEnds): == is asked where the common ends are
        // found, again where the element's change is described, and once by FieldDiff before
        // it looks inside the element (an unchanged member is not looked into).
        let comparisons = Counted.comparisons.withLock { $0 }
        #expect(comparisons == 3, "\(comparisons) comparisons for one changed element")
    }
}

/// An element that counts how often it is compared.
struct Counted: Codable, Sendable, Identifiable, Diffable {
    static let comparisons = Mutex(0)
    var id: Int
    var value: Int

    static func == (lhs: Counted, rhs: Counted) -> Bool {
        comparisons.withLock { $0 += 1 }
        return lhs.id == rhs.id && lhs.value == rhs.value
    }
}
