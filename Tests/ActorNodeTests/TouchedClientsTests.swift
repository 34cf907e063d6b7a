import Testing
@testable import ActorNode
import Wire

/// The clients marked in a turn are settled once each: those owed an answer first, then the
/// others, each group in the order they were marked.
@Suite("Touched clients")
struct TouchedClientsTests {
    private func clients(_ numbers: ClosedRange<Int>) -> [EngineClient] {
        numbers.map { .unconnected($0) }
    }

    /// The numbers of the clients taken, in the order they are settled.
    private func order(_ taken: TouchedClients.Taken) -> [Int] {
        var numbers: [Int] = []
        taken.forEach { numbers.append($0.number) }
        return numbers
    }

    @Test("a sender owed its ack is settled before the watchers, however it was marked")
    func answersFirst() {
        let all = clients(1 ... 6)
        var touched = TouchedClients()
        // The sender 6 is touched when its action is read; the rendition reaches the watchers
        // 1 to 5 and the sender; then the sender's ack.
        touched.insert(all[5])
        for index in 0 ..< 6 { touched.insert(all[index]) }
        touched.insertAnswered(all[5])
        touched.insertAnswered(all[5])
        touched.insert(all[2])
        var taken = touched.takeAll()
        #expect(order(taken) == [6, 1, 2, 3, 4, 5])
        #expect(touched.isEmpty)
        #expect(!all.contains { touched.isMarked($0) })
        touched.giveBack(&taken)

        // The next turn starts clean: marks made again are taken again, in their order.
        touched.insert(all[1])
        touched.insertAnswered(all[3])
        touched.insertAnswered(all[0])
        #expect(order(touched.takeAll()) == [4, 1, 2])
    }

    @Test("a client removed before the end of the turn is not settled")
    func removed() {
        let all = clients(1 ... 3)
        var touched = TouchedClients()
        touched.insert(all[0])
        touched.insertAnswered(all[1])
        touched.insert(all[2])
        touched.remove(all[1])
        touched.remove(all[2])
        #expect(order(touched.takeAll()) == [1])
        touched.remove(all[0])
        #expect(touched.isEmpty)
    }

    @Test("every mark is lifted before any client is settled: one marked again while settling waits for the next turn")
    func markedWhileSettling() {
        let all = clients(1 ... 3)
        var touched = TouchedClients()
        touched.insert(all[0])
        touched.insertAnswered(all[1])
        var taken = touched.takeAll()
        #expect(!all.contains { touched.isMarked($0) })
        var settled: [Int] = []
        taken.forEach { client in
            settled.append(client.number)
            // Settling the first marks it again (a history reader given room, say), and the
            // second as owed an answer.
            if client.number == 2 { touched.insertAnswered(all[0]) }
            if client.number == 1 { touched.insert(all[0]) }
        }
        #expect(settled == [2, 1])
        touched.giveBack(&taken)
        #expect(order(touched.takeAll()) == [1])
    }

    @Test("a shell that got a rendition and then its answer, and then went, leaves nothing behind")
    func upgradedThenRemoved() {
        let all = clients(1 ... 3)
        var touched = TouchedClients()
        touched.insert(all[0])
        touched.insertAnswered(all[0])
        touched.insert(all[1])
        touched.insertAnswered(all[2])
        touched.insert(all[2])
        touched.remove(all[0])
        #expect(order(touched.takeAll()) == [3, 2])
    }
}
