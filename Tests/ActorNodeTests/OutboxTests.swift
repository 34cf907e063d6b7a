import Testing
@testable import ActorNode
@testable import Wire

@Suite("Outbox")
struct OutboxTests {
    typealias Message = ServerMessage<Int>

    private func rendition(_ revision: UInt64) -> Rendition<Int> {
        Rendition(revision: revision, content: .patch([.replace(JSONPointer(), .integer(Int64(revision)))]))
    }

    private func drain(_ outbox: Outbox<Int>) async -> [Message] {
        var messages: [Message] = []
        while outbox.count > 0, let message = await outbox.receive() {
            messages.append(message)
        }
        return messages
    }

    @Test("messages come out in the order they were queued")
    func order() async {
        let outbox = Outbox<Int>()
        outbox.offer(rendition(1)) { Rendition(revision: 1, content: .snapshot(1)) }
        outbox.send(.ack(Ack(seq: 1, revision: 1)))
        outbox.send(.reject(Reject(seq: 2, code: "x", message: "y")))
        #expect(await drain(outbox) == [.rendition(rendition(1)), .ack(Ack(seq: 1, revision: 1)), .reject(Reject(seq: 2, code: "x", message: "y"))])
    }

    @Test("a lagging client gets one snapshot of the newest state where its oldest rendition was; acks are kept")
    func coalescing() async {
        let outbox = Outbox<Int>(limits: .init(renditionLag: 3, hardLimit: 100))
        for revision in UInt64(1) ... 5 {
            outbox.offer(rendition(revision)) { Rendition(revision: revision, content: .snapshot(Int(revision) * 10)) }
            outbox.send(.ack(Ack(seq: revision, revision: revision)))
        }
        let messages = await drain(outbox)
        #expect(messages == [
            .rendition(Rendition(revision: 4, content: .snapshot(40))),
            .ack(Ack(seq: 1, revision: 1)), .ack(Ack(seq: 2, revision: 2)), .ack(Ack(seq: 3, revision: 3)),
            .ack(Ack(seq: 4, revision: 4)),
            .rendition(rendition(5)),
            .ack(Ack(seq: 5, revision: 5)),
        ])
        #expect(outbox.coalescedCount == 3)
    }

    @Test("past the hard limit the outbox drops all but the replies, adds a too_slow error, and finishes")
    func overflow() async {
        let outbox = Outbox<Int>(limits: .init(renditionLag: 2, hardLimit: 3, unansweredLimit: 2))
        #expect(outbox.send(.ack(Ack(seq: 1, revision: 1))) == .queued)
        #expect(outbox.send(.notice(Notice(text: "one"))) == .queued)
        #expect(outbox.send(.notice(Notice(text: "two"))) == .queued)
        #expect(outbox.send(.ack(Ack(seq: 2, revision: 2))) == .overflow)
        #expect(outbox.send(.ack(Ack(seq: 3, revision: 3))) == .finished)
        #expect(await outbox.receive() == .ack(Ack(seq: 1, revision: 1)))
        #expect(await outbox.receive() == .ack(Ack(seq: 2, revision: 2)))
        guard case let .error(error)? = await outbox.receive() else {
            Issue.record("expected the too_slow error")
            return
        }
        #expect(error.code == "too_slow")
        #expect(error.message.contains("fell 3 messages behind"))
        #expect(await outbox.receive() == nil)
    }

    @Test("a presence count replaces the one still queued")
    func presenceSupersedes() async {
        let outbox = Outbox<Int>()
        outbox.send(.presence(Presence(shells: 1)))
        outbox.send(.ack(Ack(seq: 1, revision: 1)))
        outbox.send(.presence(Presence(shells: 2)))
        outbox.send(.presence(Presence(shells: 3)))
        outbox.finish()
        #expect(await drain(outbox) == [.presence(Presence(shells: 3)), .ack(Ack(seq: 1, revision: 1))])
    }

    @Test("room for answers: waits while the limit is reached, resumes as the writer takes them")
    func answerRoom() async {
        let outbox = Outbox<Int>(limits: .init(unansweredLimit: 2))
        outbox.expectAnswer()
        outbox.expectAnswer()
        let waited = Task { await outbox.waitForAnswerRoom() }
        outbox.send(.ack(Ack(seq: 1, revision: 1)))
        #expect(await outbox.receive() == .ack(Ack(seq: 1, revision: 1)))
        await waited.value
        outbox.expectAnswer()
        // A finished outbox never holds anyone back.
        outbox.finish()
        await outbox.waitForAnswerRoom()
    }

    @Test("finish(with:) delivers the last message, then the end")
    func finishWith() async {
        let outbox = Outbox<Int>()
        outbox.send(.ack(Ack(seq: 1, revision: 1)))
        outbox.finish(with: .bye(Bye(reason: "stopping")))
        #expect(outbox.send(.ack(Ack(seq: 2, revision: 2))) == .finished)
        #expect(await outbox.receive() == .ack(Ack(seq: 1, revision: 1)))
        #expect(await outbox.receive() == .bye(Bye(reason: "stopping")))
        #expect(await outbox.receive() == nil)
    }

    @Test("a waiting receiver is handed the next message at once")
    func waitingReceiver() async {
        let outbox = Outbox<Int>()
        let receiver = Task { await outbox.receive() }
        try? await Task.sleep(for: .milliseconds(20))
        outbox.send(.ack(Ack(seq: 9, revision: 9)))
        #expect(await receiver.value == .ack(Ack(seq: 9, revision: 9)))
    }
}
