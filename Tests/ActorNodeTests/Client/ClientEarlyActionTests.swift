@testable import ActorNode
import Testing
import Wire

/// An action submitted while the hello waits for its welcome goes right after the hello (a
/// one-shot `send` then needs one round trip, not two), is not sent again by the welcome, and
/// is sent again after the next welcome if the connection is lost first. With older actions
/// waiting for the welcome, a new one waits behind them, so the core still reads them in order.
@Suite("Actions sent before the welcome")
struct ClientEarlyActionTests {
    private static let hello = json(#"{"hello":{"client":"c1","name":"test","protocol":1,"role":"shell"}}"#)

    @Test("submitted during the handshake: written right after the hello, once")
    func afterHello() throws {
        var test = MachineUnderTest(reconnectFor: .seconds(30))
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        try test.submit(json(#"{"add":{"text":"a"}}"#))
        try test.submit(json(#"{"add":{"text":"b"}}"#))
        #expect(test.written == [
            Self.hello,
            MachineUnderTest.action(1, json(#"{"add":{"text":"a"}}"#)),
            MachineUnderTest.action(2, json(#"{"add":{"text":"b"}}"#)),
        ])
        test.outputs.removeAll()
        test.receive(.welcome(Welcome(core: "k1", pid: 7, shells: 1, revision: 0, snapshot: json(#"{"n":0}"#))))
        #expect(test.written.isEmpty)
        test.receive(#"{"ack":{"revision":1,"seq":1}}"#)
        test.receive(#"{"ack":{"revision":2,"seq":2}}"#)
        #expect(test.events.contains(.answered(seq: 1, .applied(revision: 1))))
        #expect(test.events.contains(.answered(seq: 2, .applied(revision: 2))))
        #expect(!test.machine.hasUnanswered)
    }

    @Test("lost before the welcome: sent again, with its number, after the next welcome")
    func lostBeforeWelcome() throws {
        var test = MachineUnderTest(reconnectFor: .seconds(30))
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        try test.submit(json(#"{"add":{"text":"a"}}"#))
        test.run(test.machine.connectionEnded(now: test.now))
        test.advanceToNextAttempt()
        test.outputs.removeAll()
        test.run(test.machine.connected(now: test.now))
        #expect(test.written == [Self.hello])
        test.outputs.removeAll()
        test.receive(.welcome(Welcome(core: "k2", pid: 8, shells: 1, revision: 0, snapshot: json(#"{"n":0}"#))))
        #expect(test.written == [MachineUnderTest.action(1, json(#"{"add":{"text":"a"}}"#))])
    }

    @Test("older actions waiting for the welcome: a new one waits behind them, and all go in order")
    func behindOlder() throws {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        try test.submit(json(#"{"add":{"text":"a"}}"#))
        test.run(test.machine.connectionEnded(now: test.now))
        test.advanceToNextAttempt()
        test.run(test.machine.connected(now: test.now))
        test.outputs.removeAll()
        try test.submit(json(#"{"add":{"text":"b"}}"#))
        #expect(test.written.isEmpty)
        test.receive(.welcome(Welcome(core: "k2", pid: 8, shells: 1, revision: 0, snapshot: json(#"{"n":0}"#))))
        #expect(test.written == [
            MachineUnderTest.action(1, json(#"{"add":{"text":"a"}}"#)),
            MachineUnderTest.action(2, json(#"{"add":{"text":"b"}}"#)),
        ])
    }
}
