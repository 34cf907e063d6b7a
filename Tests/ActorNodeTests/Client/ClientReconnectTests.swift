@testable import ActorNode
import Testing
import Wire

/// Riding through a core's restart: the one backoff rule, resending with the original numbers,
/// and when to give up (PROTOCOL.md section 7), driven without a socket.
@Suite("Client machine: reconnecting")
struct ClientReconnectTests {
    @Test("a lost core is tried again after 100, 200, 400 ms ... at most 2 s apart")
    func backoff() {
        var backoff = Backoff()
        let waits = (0 ..< 7).map { _ in backoff.next() }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600), .seconds(2), .seconds(2)])
    }

    @Test("a core restarted under it: reconnecting, back at the new welcome, unanswered actions sent again with their numbers")
    func restart() throws {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        try test.submit(json(#"{"add":{"text":"a"}}"#))
        try test.submit(json(#"{"add":{"text":"b"}}"#))
        test.receive(#"{"ack":{"revision":1,"seq":1}}"#)
        test.outputs.removeAll()
        test.run(test.machine.connectionEnded(now: test.now))
        #expect(test.outputs == [.disconnect, .event(.reconnecting("the connection to the core was lost; reconnecting"))])
        // Actions typed meanwhile wait.
        try test.submit(json(#"{"add":{"text":"c"}}"#))
        #expect(test.written.isEmpty)
        // The core is not back yet: the next attempt waits longer.
        test.advanceToNextAttempt()
        #expect(test.outputs.last == .connect)
        test.run(test.machine.connectFailed(.unreachable("connection refused"), now: test.now))
        #expect(test.machine.deadline == test.now + .milliseconds(200))
        test.advanceToNextAttempt()
        test.run(test.machine.connected(now: test.now))
        test.outputs.removeAll()
        test.receive(.welcome(Welcome(core: "k2", pid: 8, shells: 1, revision: 1, snapshot: json(#"{"n":1}"#))))
        #expect(test.events == [.reconnected(revision: 1)])
        #expect(test.written == [
            MachineUnderTest.action(2, json(#"{"add":{"text":"b"}}"#)),
            MachineUnderTest.action(3, json(#"{"add":{"text":"c"}}"#)),
        ])
        #expect(test.machine.document == json(#"{"n":1}"#))
    }

    @Test("a try through ssh that fails says why, once per different reason; a refused local socket says nothing more")
    func whyTriesFail() {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        test.run(test.machine.connectionEnded(now: test.now))
        test.outputs.removeAll()
        for _ in 0 ..< 2 {
            test.advanceToNextAttempt()
            test.run(test.machine.connectFailed(.unreachable("connection refused"), now: test.now))
        }
        #expect(test.events.isEmpty)
        for why in ["cannot reach h through ssh: Permission denied", "cannot reach h through ssh: Permission denied", "h: no core is serving /s"] {
            test.advanceToNextAttempt()
            test.run(test.machine.connectFailed(.remote(why), now: test.now))
        }
        #expect(test.events == [
            .reconnecting("still reconnecting: cannot reach h through ssh: Permission denied"),
            .reconnecting("still reconnecting: h: no core is serving /s"),
        ])
    }

    @Test("a core that comes back at an older revision (a machine crash) is taken as it is")
    func olderRevision() {
        var test = MachineUnderTest.open(at: 10, reconnectFor: .seconds(30))
        test.run(test.machine.connectionEnded(now: test.now))
        test.advanceToNextAttempt()
        test.run(test.machine.connected(now: test.now))
        test.outputs.removeAll()
        test.receive(.welcome(Welcome(core: "k2", pid: 8, shells: 1, revision: 7, snapshot: json(#"{"n":7}"#))))
        #expect(test.events == [.reconnected(revision: 7)])
        #expect(test.machine.revision == 7)
    }

    @Test("too_slow: let go and reconnected when a window is given; the end otherwise")
    func tooSlow() {
        var riding = MachineUnderTest.open(reconnectFor: .seconds(30))
        riding.receive(#"{"error":{"code":"too_slow","message":"this client fell too far behind"}}"#)
        #expect(riding.events.isEmpty)
        riding.run(riding.machine.connectionEnded(now: riding.now))
        #expect(riding.events == [.reconnecting("the core let this client go: this client fell too far behind; reconnecting")])

        var once = MachineUnderTest.open()
        once.receive(#"{"error":{"code":"too_slow","message":"behind"}}"#)
        #expect(once.ended == .some(.protocolError(ErrorMessage(.tooSlow, "behind"))))
    }

    @Test("after a goodbye, a socket that is gone means the core was stopped for good: the end, with no 'reconnecting'")
    func goodbyeForGood() {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        test.receive(#"{"bye":{"reason":"stopping"}}"#)
        test.run(test.machine.connectionEnded(now: test.now))
        #expect(test.events.isEmpty)
        test.advanceToNextAttempt()
        test.run(test.machine.connectFailed(.noSocket("no socket"), now: test.now))
        #expect(test.events == [.ended(.goodbye(nil))])
    }

    @Test("after a goodbye, a core that is being restarted: 'reconnecting' once the first attempt fails, then back")
    func goodbyeThenBack() {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        test.receive(#"{"bye":{"reason":"restarting"}}"#)
        test.run(test.machine.connectionEnded(now: test.now))
        test.advanceToNextAttempt()
        test.run(test.machine.connectFailed(.unreachable("refused"), now: test.now))
        #expect(test.events == [.reconnecting("the core said goodbye: restarting; reconnecting")])
        test.advanceToNextAttempt()
        test.run(test.machine.connected(now: test.now))
        test.receive(.welcome(Welcome(core: "k2", pid: 8, shells: 1, revision: 0, snapshot: json("{}"))))
        #expect(test.events.last == .reconnected(revision: 0))
        #expect(test.events.count == 2)
    }

    @Test("a core that stays away past the window: the end, saying how it was lost and the last failure")
    func windowCloses() {
        var test = MachineUnderTest.open(reconnectFor: .seconds(1))
        test.run(test.machine.connectionEnded(now: test.now))
        while test.ended == nil {
            test.advanceToNextAttempt()
            test.run(test.machine.connectFailed(.unreachable("connection refused"), now: test.now))
        }
        #expect(test.ended == .some(.closed("the connection to the core was lost, and it was not back within 1 s (connection refused)")))
    }

    @Test("without a window, a lost core is the end of the session")
    func noWindow() {
        var test = MachineUnderTest.open()
        test.run(test.machine.connectionEnded(now: test.now))
        #expect(test.ended == .some(.closed("the connection to the core was lost")))
    }

    @Test("a different protocol version or an untrusted socket on the way back stops the trying: nothing is resent")
    func refusedOnTheWayBack() throws {
        var test = MachineUnderTest.open(reconnectFor: .seconds(30))
        try test.submit(json("{}"))
        test.run(test.machine.connectionEnded(now: test.now))
        test.advanceToNextAttempt()
        test.run(test.machine.connectFailed(.untrusted("another user serves it"), now: test.now))
        #expect(test.ended == .some(.untrusted("another user serves it")))
    }
}
