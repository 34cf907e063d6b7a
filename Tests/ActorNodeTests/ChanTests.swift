import Testing
@testable import ActorNode

@Suite("Chan")
struct ChanTests {
    @Test("messages arrive once each, in order, and `<-` sends")
    func fifo() async {
        let chan = Chan<Int>()
        for value in 1 ... 5 { await chan <- value }
        chan.close()
        var received: [Int] = []
        for await value in chan { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
    }

    @Test("close lets receivers drain what is buffered, then ends; later sends fail")
    func closeDrains() async {
        let chan = Chan<String>()
        #expect(await chan.send("a"))
        chan.close()
        #expect(await chan.send("b") == false)
        #expect(chan.trySend("c") == false)
        #expect(await chan.receive() == "a")
        #expect(await chan.receive() == nil)
        #expect(chan.isClosed)
    }

    @Test("a full bounded channel makes the sender wait until a receiver takes a message")
    func boundedSendWaits() async {
        let chan = Chan<Int>(capacity: 1)
        #expect(await chan.send(1))
        #expect(chan.trySend(2) == false)
        let sender = Task { await chan.send(2) }
        // The sender is parked until there is room.
        #expect(await chan.receive() == 1)
        #expect(await sender.value)
        #expect(await chan.receive() == 2)
    }

    @Test("a receiver waiting on an empty channel is woken by a send")
    func receiverWakes() async {
        let chan = Chan<Int>()
        let receiver = Task { await chan.receive() }
        await chan <- 42
        #expect(await receiver.value == 42)
    }

    @Test("cancelling a waiting receiver ends its wait with nil and loses nothing")
    func cancelledReceiver() async {
        let chan = Chan<Int>()
        let receiver = Task { await chan.receive() }
        receiver.cancel()
        #expect(await receiver.value == nil)
        await chan <- 7
        #expect(await chan.receive() == 7)
    }

    @Test("cancelling a waiting sender drops its message and reports it")
    func cancelledSender() async {
        let chan = Chan<Int>(capacity: 1)
        await chan <- 1
        let sender = Task { await chan.send(2) }
        sender.cancel()
        #expect(await sender.value == false)
        #expect(await chan.receive() == 1)
        chan.close()
        #expect(await chan.receive() == nil)
    }

    @Test("many senders and receivers: every message delivered exactly once")
    func manyToMany() async {
        let chan = Chan<Int>(capacity: 4)
        let received = await withTaskGroup(of: [Int].self) { group in
            for sender in 0 ..< 4 {
                group.addTask {
                    for value in 0 ..< 250 { await chan <- sender * 1000 + value }
                    return []
                }
            }
            for _ in 0 ..< 3 {
                group.addTask {
                    var mine: [Int] = []
                    while mine.count < 1000, let value = await chan.receive() {
                        mine.append(value)
                        if value == -1 { break }
                    }
                    return mine
                }
            }
            var all: [Int] = []
            var finishedSenders = 0
            for await part in group {
                if part.isEmpty {
                    finishedSenders += 1
                    if finishedSenders == 4 { chan.close() }
                } else {
                    all += part
                }
            }
            return all
        }
        #expect(received.count == 1000)
        #expect(Set(received).count == 1000)
    }

    @Test("race in a task cancelled before any result: the operations are cancelled, and the first to end is the result (it used to trap on a nil)")
    func raceCancelled() async {
        let never = Chan<Int>()
        let racing = Task {
            await race([
                { @Sendable in await never.receive() ?? -1 },
                { @Sendable in
                    await EventLoop.shared.sleep(for: .seconds(30))
                    return 5
                },
            ])
        }
        racing.cancel()
        #expect(await racing.value == -1)
    }

    @Test("race returns the first result without waiting for the others")
    func raceReturnsFirst() async {
        let never = Chan<Int>()
        let winner = await race([
            { @Sendable in await never.receive() ?? -1 },
            { @Sendable in 5 },
        ])
        #expect(winner == 5)
    }
}
