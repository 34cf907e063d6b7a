import Testing
@testable import ActorNode
import Wire

/// The engine's table of clients finds, adds and removes clients as a dictionary would.
@Suite("Client table")
struct ClientTableTests {
    @Test("random adds and removes, in any order, agree with a dictionary")
    func agreesWithADictionary() {
        var random = SystemRandomNumberGenerator()
        var table = ClientTable()
        var reference: [Int: EngineClient] = [:]
        var next = 1
        for _ in 0 ..< 5000 {
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 4:
                // Mostly the next number; now and then an older one that is free.
                let number = Int.random(in: 0 ..< 8, using: &random) == 0 ? Int.random(in: 1 ... next, using: &random) : next
                if number == next { next += 1 }
                let added = EngineClient.unconnected(number)
                table[number] = added
                reference[number] = added
            case 4 ..< 6:
                let number = Int.random(in: 0 ... next, using: &random)
                #expect(table.removeValue(forKey: number) === reference.removeValue(forKey: number))
            case 6:
                let number = Int.random(in: 0 ... next, using: &random)
                table[number] = nil
                reference[number] = nil
            default:
                let number = Int.random(in: 0 ... next, using: &random)
                #expect(table[number] === reference[number])
            }
            #expect(table.count == reference.count)
        }
        #expect(table.keys == reference.keys.sorted())
        #expect(table.values.map(\.number) == reference.keys.sorted())
        #expect(table.isEmpty == reference.isEmpty)
        let byNumberDescending = table.sorted { $0.key > $1.key }.map(\.key)
        #expect(byNumberDescending == reference.keys.sorted(by: >))
    }
}
