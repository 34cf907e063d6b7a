@testable import ActorNode
import Testing
import Wire

/// Numbering actions and matching their answers (PROTOCOL.md section 6), driven without a socket.
@Suite("Client machine: actions and their answers")
struct ClientAnswerTests {
    @Test("pipelined actions are numbered from 1 and written at once; each answer is told once")
    func pipelined() throws {
        var test = MachineUnderTest.open()
        let first = try test.submit(json(#"{"add":{"text":"a"}}"#))
        let second = try test.submit(json(#"{"add":{"text":"b"}}"#))
        #expect((first, second) == (1, 2))
        #expect(test.written == [
            MachineUnderTest.action(1, json(#"{"add":{"text":"a"}}"#)),
            MachineUnderTest.action(2, json(#"{"add":{"text":"b"}}"#)),
        ])
        test.outputs.removeAll()
        test.receive(#"{"ack":{"revision":1,"seq":1}}"#)
        test.receive(#"{"reject":{"code":"invalid_action","message":"no","seq":2}}"#)
        // An answer to a number this client is not waiting for (a duplicate) is not news.
        test.receive(#"{"ack":{"revision":1,"seq":1}}"#)
        #expect(test.events == [
            .answered(seq: 1, .applied(revision: 1)),
            .answered(seq: 2, .rejected(Reject(seq: 2, code: "invalid_action", message: "no"))),
        ])
        #expect(!test.machine.hasUnanswered)
    }

    @Test("an ack written another way than the core's own (spaces, member order) is read the general way")
    func generalAck() throws {
        var test = MachineUnderTest.open()
        try test.submit(json(#"{"inc":{}}"#))
        test.outputs.removeAll()
        test.receive(#"{ "ack" : { "seq" : 1, "revision" : 4 } }"#)
        #expect(test.events == [.answered(seq: 1, .applied(revision: 4))])
    }

    @Test("an action submitted before the connection is made is written once the session is open (ClientEarlyActionTests: after the hello)")
    func beforeConnection() throws {
        var test = MachineUnderTest()
        test.run(test.machine.start(now: test.now))
        try test.submit(json(#"{"inc":{}}"#))
        #expect(test.written.isEmpty)
        test.run(test.machine.connected(now: test.now))
        #expect(test.written.count == 1)  // the hello alone
        test.receive(.welcome(Welcome(core: "k1", pid: 7, shells: 1, revision: 0, snapshot: json("{}"))))
        #expect(test.written.last == MachineUnderTest.action(1, json(#"{"inc":{}}"#)))
    }

    @Test("closing says bye and ends the session as this client's own; nothing can be sent after")
    func close() throws {
        var test = MachineUnderTest.open()
        test.run(test.machine.close())
        #expect(test.written == [json(#"{"bye":{}}"#)])
        #expect(test.outputs.contains(.disconnect))
        #expect(test.ended == .some(nil))
        #expect(throws: LinkError.self) { try test.submit(json("{}")) }
    }

    @Test("a script's machine ignores renditions (it is sent none) and keeps no mirror")
    func scriptIgnoresRenditions() {
        var test = MachineUnderTest.open(mirrors: false)
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/n","value":1}],"revision":1}}"#)
        #expect(test.events.isEmpty)
        #expect(test.machine.document == nil)
        #expect(test.machine.welcome?.revision == 0)
    }
}
