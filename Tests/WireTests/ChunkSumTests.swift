import Testing
@testable import Wire

/// A view's summary of a long list (how many items are done) is summed chunk by chunk, the
/// chunks it saw before not gone through again: after any change, the sum is the list's.
@Suite("ChunkedArray sums")
struct ChunkSumTests {
    @Test("after random changes and copies, the kept sum is the sum over the list")
    func keptSumIsTheSum() {
        var random = SystemRandomNumberGenerator()
        var list = ChunkedArray((0 ..< 3000).map { $0 % 3 == 0 })
        var cache = ChunkSums()
        for step in 0 ..< 2000 {
            let count = list.count
            switch Int.random(in: 0 ..< 5, using: &random) {
            case 0 where count > 0:
                let index = Int.random(in: 0 ..< count, using: &random)
                list[index].toggle()
            case 1:
                list.insert(Bool.random(using: &random), at: Int.random(in: 0 ... count, using: &random))
            case 2 where count > 0:
                list.remove(at: Int.random(in: 0 ..< count, using: &random))
            case 3 where step % 200 == 0:
                // A list of its own, then back: sums of chunks seen before are kept for neither.
                list = ChunkedArray((0 ..< Int.random(in: 0 ..< 2000, using: &random)).map { _ in Bool.random(using: &random) })
            default:
                list.append(true)
            }
            let expected = list.reduce(0) { $0 + ($1 ? 1 : 0) }
            guard list.sum({ $0 ? 1 : 0 }, cache: &cache) == expected else {
                Issue.record("step \(step): the kept sum differs from the list's \(expected)")
                return
            }
        }
    }
}
