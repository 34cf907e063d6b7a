@testable import ActorNode
import Testing
import Wire

/// The hello and its welcome, and every way that fails (PROTOCOL.md section 5), driven without
/// a socket.
@Suite("Client machine: the handshake")
struct ClientHandshakeTests {
    @Test("it connects, says hello, and opens on the welcome with the welcome's state")
    func opens() {
        var test = MachineUnderTest()
        test.run(test.machine.start(now: test.now))
        #expect(test.outputs == [.connect])
        test.run(test.machine.connected(now: test.now))
        #expect(test.written == [json(#"{"hello":{"client":"c1","name":"test","protocol":\#(ProtocolVersion.current),"role":"shell"}}"#)])
        test.receive(#"{"welcome":{"core":"k1","pid":7,"protocol":\#(ProtocolVersion.current),"revision":3,"shells":2,"snapshot":{"n":5}}}"#)
        #expect(test.events == [.welcomed(revision: 3, shells: 2, pid: 7)])
        #expect(test.machine.isOpen)
        #expect(test.machine.revision == 3)
        #expect(test.machine.shells == 2)
        #expect(test.machine.document == json(#"{"n":5}"#))
        #expect(test.machine.welcome?.core == "k1")
        #expect(test.machine.deadline == nil)
    }

    @Test("a welcome that comes one byte at a time opens the session the same way")
    func byteAtATime() {
        var test = MachineUnderTest()
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        let frame = MachineUnderTest.frame(.welcome(Welcome(core: "k1", pid: 7, shells: 1, revision: 9, snapshot: json(#"{"n":[1,2]}"#))))
        for byte in frame { test.receive(bytes: [byte]) }
        #expect(test.events == [.welcomed(revision: 9, shells: 1, pid: 7)])
        #expect(test.machine.document == json(#"{"n":[1,2]}"#))
    }

    @Test("the first connection fails at once when nothing is there, even with a reconnection window")
    func firstConnectionFailsAtOnce() {
        var test = MachineUnderTest(reconnectFor: .seconds(60))
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connectFailed(.noSocket("no socket at /s"), now: test.now))
        #expect(test.ended == .some(.noSocket("no socket at /s")))
        #expect(test.machine.isEnded)
    }

    @Test("a core that does not answer hello in time: timed out, and the connection closed")
    func helloTimesOut() {
        var test = MachineUnderTest(timeout: .seconds(2))
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        test.outputs.removeAll()
        test.advance(.seconds(1))
        #expect(test.outputs.isEmpty)
        test.advance(.seconds(1))
        #expect(test.outputs.first == .disconnect)
        #expect(test.ended == .some(.timedOut("the core did not answer hello within 2 s")))
    }

    @Test("a core that closes before welcoming: closed; with a window, tried again after 100 ms")
    func closedBeforeWelcome() {
        var once = MachineUnderTest()
        once.run(once.machine.start(now: once.now))
        once.run(once.machine.connected(now: once.now))
        once.run(once.machine.connectionEnded(now: once.now))
        #expect(once.ended == .some(.closed("the core closed the connection before welcoming this client")))

        var again = MachineUnderTest(reconnectFor: .seconds(10))
        again.run(again.machine.start(now: again.now))
        again.run(again.machine.connected(now: again.now))
        again.outputs.removeAll()
        again.run(again.machine.connectionEnded(now: again.now))
        #expect(again.outputs == [.disconnect])
        #expect(again.machine.deadline == again.now + .milliseconds(100))
        again.advance(.milliseconds(100))
        #expect(again.outputs.last == .connect)
    }

    @Test("a version mismatch is final, named as such, with no retry")
    func versionMismatch() {
        var test = MachineUnderTest(reconnectFor: .seconds(10))
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        test.receive(#"{"error":{"code":"version_mismatch","message":"this core speaks protocol 9","protocol":9}}"#)
        guard case let .some(.versionMismatch(error)?) = test.ended else {
            Issue.record("not a version mismatch: \(test.events)")
            return
        }
        #expect(error.protocolVersion == 9)
        #expect(test.outputs.contains(.disconnect))
    }

    @Test("a core that answers hello with another message, or with a frame that is no message, breaks the protocol")
    func wrongAnswer() {
        for (text, expected) in [
            (#"{"ack":{"revision":1,"seq":1}}"#, "the core answered hello with ack instead of welcome"),
            (#"{"rendition":{"revision":1,"snapshot":{}}}"#, "the core answered hello with rendition instead of welcome"),
            (#"{"notice":{"text":"hi"}}"#, "the core answered hello with notice instead of welcome"),
        ] {
            var test = MachineUnderTest()
            test.run(test.machine.start(now: test.now))
            test.run(test.machine.connected(now: test.now))
            test.receive(text)
            #expect(test.ended == .some(.protocolError(ErrorMessage(.unexpectedMessage, expected))), "\(text)")
        }
        var garbage = MachineUnderTest()
        garbage.run(garbage.machine.start(now: garbage.now))
        garbage.run(garbage.machine.connected(now: garbage.now))
        garbage.receive("not json")
        guard case let .some(.protocolError(error)?) = garbage.ended else {
            Issue.record("no protocol error: \(garbage.events)")
            return
        }
        #expect(error.code == ErrorCode.badFrame.rawValue)
        #expect(error.message.hasPrefix("the core sent a frame that is not a valid message"))
    }

    @Test("a kind of message this client does not know is skipped, before and after the welcome")
    func unknownMessagesSkipped() {
        var test = MachineUnderTest()
        test.run(test.machine.start(now: test.now))
        test.run(test.machine.connected(now: test.now))
        test.receive(#"{"future":{"x":1}}"#)
        #expect(test.events.isEmpty)
        test.receive(#"{"welcome":{"core":"k1","pid":7,"protocol":\#(ProtocolVersion.current),"revision":0,"shells":1,"snapshot":{}}}"#)
        test.receive(#"{"future":{"x":2}}"#)
        #expect(test.events == [.welcomed(revision: 0, shells: 1, pid: 7)])
        #expect(test.machine.isOpen)
    }
}
