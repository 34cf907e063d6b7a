import Testing
@testable import ActorNode
import Wire

/// The core's list of shells keeps them in the order of their numbers, once each.
@Suite("Receivers")
struct ReceiversTests {
    @Test("random welcomes and drops keep the numbers in order, as a sorted set would")
    func agreesWithASortedSet() {
        var random = SystemRandomNumberGenerator()
        var receivers = Receivers()
        var reference = Set<Int>()
        for _ in 0 ..< 3000 {
            let number = Int.random(in: 1 ... 60, using: &random)
            if Bool.random(using: &random) {
                receivers.insert(EngineClient.unconnected(number))
                reference.insert(number)
            } else {
                #expect((receivers.remove(number)?.number) == reference.remove(number))
            }
            #expect(receivers.map(\.number) == reference.sorted())
            #expect(receivers.count == reference.count)
            #expect(receivers.isEmpty == reference.isEmpty)
        }
    }
}
