@testable import ActorNode
import Testing
import Wire

/// The mirror of the state and the checks on its revisions (PROTOCOL.md sections 6 and 7),
/// driven without a socket.
@Suite("Client machine: the mirror")
struct ClientMirrorTests {
    @Test("a patch for the next revision is applied in place and told with the patch")
    func patchApplies() {
        var test = MachineUnderTest.open(at: 4, state: json(#"{"n":0,"items":[1]}"#))
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/n","value":1},{"op":"add","path":"/items/-","value":2}],"revision":5}}"#)
        #expect(test.machine.revision == 5)
        #expect(test.machine.document == json(#"{"n":1,"items":[1,2]}"#))
        guard case let .changed(revision, patch?) = test.events.first else {
            Issue.record("no change with its patch: \(test.events)")
            return
        }
        #expect(revision == 5)
        #expect(patch.count == 2)
    }

    @Test("a snapshot jumps ahead and replaces the mirror")
    func snapshotJumps() {
        var test = MachineUnderTest.open(at: 4)
        test.receive(#"{"rendition":{"revision":90,"snapshot":{"n":90}}}"#)
        #expect(test.events == [.changed(revision: 90, patch: nil)])
        #expect(test.machine.document == json(#"{"n":90}"#))
    }

    @Test("a patch that skips a revision, a snapshot that is not newer: each ends the session with what broke")
    func brokenRenditions() {
        let cases: [(String, String)] = [
            (#"{"rendition":{"patch":[],"revision":6}}"#, "patch for revision 6 does not follow revision 4"),
            (#"{"rendition":{"revision":4,"snapshot":{}}}"#, "snapshot for revision 4 after revision 4"),
        ]
        for (text, expected) in cases {
            var test = MachineUnderTest.open(at: 4)
            test.receive(text)
            guard case let .some(.protocolError(error)?) = test.ended else {
                Issue.record("\(text): not a protocol error: \(test.events)")
                continue
            }
            #expect(error.code == ErrorCode.badFrame.rawValue)
            #expect(error.message.hasPrefix(expected), "\(error.message)")
            #expect(test.outputs.contains(.disconnect))
            // A failed patch leaves the mirror as it was.
            #expect(test.machine.document == json(#"{"n":0}"#))
        }
    }

    @Test("a patch that does not apply asks for the whole state (resync), lets the next patches pass, and goes on from the snapshot")
    func patchThatDoesNotApplyResyncs() throws {
        var test = MachineUnderTest.open(at: 4)
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/winner","value":1}],"revision":5}}"#)
        #expect(test.ended == nil, "the session goes on")
        #expect(test.machine.isResyncing)
        let request = try #require(test.outputs.compactMap { if case let .write(bytes) = $0 { bytes } else { nil } }.first)
        let message = try WireJSON.decode(ClientMessage<JSONValue>.self, from: Array(request.dropFirst(Frame.headerLength)))
        #expect(message == .resync(Resync(revision: 5, reason: "patch operation 0: no member 'winner'")))
        #expect(test.events == [.resyncing(revision: 5, reason: "patch operation 0: no member 'winner'")])
        // The core sent these before it heard the request: they are let pass.
        test.outputs = []
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/n","value":6}],"revision":6}}"#)
        #expect(test.outputs.isEmpty)
        #expect(test.machine.revision == 4)
        test.receive(#"{"rendition":{"revision":6,"snapshot":{"n":6,"winner":1}}}"#)
        #expect(test.events == [.changed(revision: 6, patch: nil)])
        #expect(!test.machine.isResyncing)
        #expect(test.machine.document == json(#"{"n":6,"winner":1}"#))
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/winner","value":2}],"revision":7}}"#)
        #expect(test.machine.document == json(#"{"n":6,"winner":2}"#))
        #expect(test.machine.revision == 7)
    }

    @Test("a second welcome breaks the protocol")
    func secondWelcome() {
        var test = MachineUnderTest.open()
        test.receive(.welcome(Welcome(core: "k1", pid: 7, shells: 1, revision: 0, snapshot: json("{}"))))
        #expect(test.ended == .some(.protocolError(ErrorMessage(.unexpectedMessage, "the core sent a second welcome"))))
    }

    @Test("notices and presence are told in order with the changes around them")
    func noticesInOrder() {
        var test = MachineUnderTest.open()
        test.receive(#"{"rendition":{"patch":[{"op":"replace","path":"/n","value":1}],"revision":1}}"#)
        test.receive(#"{"notice":{"text":"focus done"}}"#)
        test.receive(#"{"presence":{"shells":3}}"#)
        #expect(test.events.count == 3)
        #expect(test.events.dropFirst() == [.notice("focus done"), .presence(shells: 3)])
        #expect(test.machine.shells == 3)
    }

    @Test("a stream that ends in the middle of a frame is a broken stream, not a lost connection")
    func brokenStream() {
        var test = MachineUnderTest.open(reconnectFor: .seconds(10))
        test.receive(bytes: [0, 0, 0, 9, UInt8(ascii: "{")])
        test.run(test.machine.connectionEnded(now: test.now))
        guard case let .some(.protocolError(error)?) = test.ended else {
            Issue.record("not a protocol error: \(test.events)")
            return
        }
        #expect(error.message.hasPrefix("the core's stream broke"))
    }
}
