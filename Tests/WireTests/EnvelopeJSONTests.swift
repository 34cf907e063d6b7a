import Testing
@testable import TodoContract
@testable import Wire

@Suite("Envelope JSON")
struct EnvelopeJSONTests {
    private func json(_ value: some Encodable) throws -> String {
        try WireJSON.string(value)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try WireJSON.decode(type, from: Array(text.utf8))
    }

    @Test("hello names the protocol version under \"protocol\"")
    func hello() throws {
        let message = ClientMessage<AppAction>.hello(Hello(role: .shell, client: "c1", name: "test"))
        #expect(try json(message) == #"{"hello":{"client":"c1","name":"test","protocol":1,"role":"shell"}}"#)
        #expect(try decode(ClientMessage<AppAction>.self, json(message)) == message)
    }

    @Test("a script's hello may ask for no snapshot; a shell's or a watcher's may not")
    func helloWithoutSnapshot() throws {
        let script = ClientMessage<AppAction>.hello(Hello(role: .script, client: "c1", name: "test", snapshot: false))
        #expect(try json(script) == #"{"hello":{"client":"c1","name":"test","protocol":1,"role":"script","snapshot":false}}"#)
        #expect(try decode(ClientMessage<AppAction>.self, json(script)) == script)
        // Said true, or not said: the state is wanted.
        let wanted = try decode(ClientMessage<AppAction>.self, #"{"hello":{"client":"c1","name":"test","protocol":1,"role":"script","snapshot":true}}"#)
        #expect(wanted == .hello(Hello(role: .script, client: "c1", name: "test")))
        for role in ["shell", "watcher"] {
            let text = #"{"hello":{"client":"c1","name":"test","protocol":1,"role":"\#(role)","snapshot":false}}"#
            do {
                _ = try decode(ClientMessage<AppAction>.self, text)
                Issue.record("a \(role) without a snapshot was read")
            } catch {
                #expect(describeDecodingFailure(error) == "at hello.snapshot: a \(role) follows the state from the welcome's snapshot, so only a script can say false")
            }
        }
        #expect(throws: (any Error).self) {
            try decode(ClientMessage<AppAction>.self, #"{"hello":{"client":"c1","name":"test","protocol":1,"role":"script","snapshot":0}}"#)
        }
    }

    @Test("an action carries the client, its sequence number and the action")
    func action() throws {
        let message = ClientMessage<AppAction>.action(ActionRequest(client: "c1", seq: 7, action: .todo(.add(text: "buy milk"))))
        #expect(try json(message) == #"{"action":{"action":{"add":{"text":"buy milk"}},"client":"c1","seq":7}}"#)
        #expect(try decode(ClientMessage<AppAction>.self, json(message)) == message)
    }

    @Test("bye may come without a payload")
    func bye() throws {
        #expect(try decode(ClientMessage<AppAction>.self, #"{"bye":{}}"#) == .bye(Bye()))
        #expect(try decode(ClientMessage<AppAction>.self, #""bye""#) == .bye(Bye()))
        #expect(try json(ServerMessage<AppState>.bye(Bye(reason: "stopping"))) == #"{"bye":{"reason":"stopping"}}"#)
    }

    @Test("welcome, ack, reject and error have readable shapes")
    func serverMessages() throws {
        let welcome = ServerMessage<AppState>.welcome(Welcome(core: "id", pid: 42, shells: 1, revision: 3, snapshot: AppState()))
        #expect(try json(welcome) == #"{"welcome":{"core":"id","pid":42,"protocol":1,"revision":3,"shells":1,"snapshot":{"counter":{"value":0},"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[],"nextId":1}}}}"#)
        #expect(try json(ServerMessage<AppState>.notice(Notice(text: "done"))) == #"{"notice":{"text":"done"}}"#)
        #expect(try json(ServerMessage<AppState>.ack(Ack(seq: 1, revision: 4))) == #"{"ack":{"revision":4,"seq":1}}"#)
        #expect(try json(ServerMessage<AppState>.reject(Reject(seq: 2, code: "unknown_item", message: "no item with id 9")))
            == #"{"reject":{"code":"unknown_item","message":"no item with id 9","seq":2}}"#)
        #expect(try json(ServerMessage<AppState>.error(ErrorMessage(.versionMismatch, "speak 1", protocolVersion: 1)))
            == #"{"error":{"code":"version_mismatch","message":"speak 1","protocol":1}}"#)
        for message in [welcome, .ack(Ack(seq: 1, revision: 4)), .error(ErrorMessage(.badFrame, "x"))] {
            #expect(try decode(ServerMessage<AppState>.self, json(message)) == message)
        }
    }

    @Test("a rendition carries either a snapshot or a patch")
    func renditions() throws {
        let snapshot = ServerMessage<AppState>.rendition(Rendition(revision: 5, content: .snapshot(AppState())))
        #expect(try json(snapshot) == #"{"rendition":{"revision":5,"snapshot":{"counter":{"value":0},"timer":{"deadline":null,"item":null,"remaining":0,"running":false},"todo":{"items":[],"nextId":1}}}}"#)
        let patch = ServerMessage<AppState>.rendition(Rendition(revision: 6, content: .patch([
            .replace(JSONPointer("/todo/items/0/done")!, .bool(true)),
        ])))
        #expect(try json(patch) == #"{"rendition":{"patch":[{"op":"replace","path":"/todo/items/0/done","value":true}],"revision":6}}"#)
        #expect(try decode(ServerMessage<AppState>.self, json(patch)) == patch)
        #expect(throws: DecodingError.self) { try decode(ServerMessage<AppState>.self, #"{"rendition":{"revision":1}}"#) }
    }

    @Test("a client skips message types it does not know; the core does not")
    func unknownServerMessages() {
        #expect(throws: UnknownMessageType(name: "gossip")) {
            try decode(ServerMessage<AppState>.self, #"{"gossip":{"text":"hi"}}"#)
        }
        #expect(throws: UnknownMessageType(name: "ping")) { try decode(ServerMessage<AppState>.self, #""ping""#) }
        #expect(throws: DecodingError.self) { try decode(ClientMessage<AppAction>.self, #"{"gossip":{}}"#) }
    }

    @Test("a message must have exactly one key, naming a known type")
    func malformedEnvelopes() {
        for text in [#"{}"#, #"{"hello":{},"bye":{}}"#, #"{"shout":{}}"#, #"[1,2]"#, #"42"#] {
            #expect(throws: DecodingError.self) { try decode(ClientMessage<AppAction>.self, text) }
        }
        do {
            _ = try decode(ClientMessage<AppAction>.self, #"{"shout":{}}"#)
        } catch let error as DecodingError {
            #expect(error.conciseDescription == "unknown message 'shout' (expected one of hello, action, resync, query, bye)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("invalid JSON is a syntax error that says where and what")
    func invalidJSON() {
        #expect(throws: JSONSyntaxError(offset: 1, message: "unexpected 'not' at byte 1; expected a string (an object's key) or '}'")) {
            try decode(ClientMessage<AppAction>.self, "{not json")
        }
    }

    @Test("a sound envelope with a bad action is an invalid action, with its seq, not a protocol error")
    func invalidActionKeepsSeq() {
        let cases: [(String, String)] = [
            (#"{"action":{"client":"c","seq":9,"action":{"frobnicate":{}}}}"#, "unknown action 'frobnicate'"),
            (#"{"action":{"client":"c","seq":9,"action":{"add":{}}}}"#, #"missing "text""#),
            (#"{"action":{"client":"c","seq":9,"action":{"toggle":{"id":"three"}}}}"#, "expected an integer"),
        ]
        for (text, expected) in cases {
            do {
                _ = try decode(ClientMessage<AppAction>.self, text)
                Issue.record("decoded \(text)")
            } catch let error as InvalidActionError {
                #expect(error.seq == 9)
                #expect(error.reason.contains(expected), "\(error.reason)")
                #expect(!error.reason.contains("action.action"), "\(error.reason)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
