import Testing
import TodoContract
import Wire

/// The frames a script writes by hand are byte for byte what the encoder writes; the ack it
/// reads by hand is the core's, and anything else is left to the general reader.
@Suite("Script frames")
struct ScriptFramesTests {
    @Test("hello, action, resync and bye: the encoder's bytes")
    func writtenAsTheEncoderWrites() throws {
        for hello in [Hello(role: .script, client: "5f0c2b1e-0a1b-4c2d-8e3f-405162738495", name: "shell-client send"),
                      Hello(role: .script, client: "c", name: "shell-client history", snapshot: false),
                      Hello(role: .watcher, client: "é \"quoted\" \\ \u{1}", name: "\u{7F}\u{9B} 買")] {
            #expect(ScriptFrames.hello(hello) == (try Frame.encode(WireJSON.encode(ClientMessage<AppAction>.hello(hello)))))
        }
        for action in [AppAction.todo(.add(text: "buy \"milk\"")), .counter(.increment), .timer(.start(id: 3, seconds: 60))] {
            let request = ActionRequest(client: "c\u{7}", seq: 9_223_372_036_854_775_807, action: action)
            #expect(try ScriptFrames.action(WireJSON.encode(action), client: request.client, seq: request.seq)
                == (try Frame.encode(WireJSON.encode(ClientMessage<AppAction>.action(request)))))
        }
        for resync in [Resync(revision: 0, reason: "patch operation 0: no member 'winner'"), Resync(revision: 9_223_372_036_854_775_807, reason: "\u{1B}[2J \"é\" \\"),
                       Resync(revision: 5, reason: String(repeating: "é", count: 400)),
                       Resync(revision: 6, reason: "a" + String(repeating: "\u{301}", count: 10_000))] {
            #expect(ScriptFrames.resync(resync) == (try Frame.encode(WireJSON.encode(ClientMessage<AppAction>.resync(resync)))))
            #expect(resync.reason.utf8.count <= Resync.maximumReasonBytes)
        }
        // Whole characters only: 256 é are 512 bytes; one character of 10,001 scalars is none.
        #expect(Resync.cut(String(repeating: "é", count: 400)) == String(repeating: "é", count: 256))
        #expect(Resync.cut("a" + String(repeating: "\u{301}", count: 10_000)) == "")
        #expect(ScriptFrames.bye == (try Frame.encode(WireJSON.encode(ClientMessage<AppAction>.bye(Bye())))))
    }

    @Test("the ack as the core writes it is read; anything else is left to the general reader")
    func ack() throws {
        #expect(ScriptFrames.ack(Array(#"{"ack":{"revision":0,"seq":1}}"#.utf8)) == Ack(seq: 1, revision: 0))
        #expect(ScriptFrames.ack(Array(#"{"ack":{"revision":123456789012345678,"seq":7}}"#.utf8)) == Ack(seq: 7, revision: 123_456_789_012_345_678))
        for other in [#"{"ack":{"seq":1,"revision":2}}"#, #"{"ack":{"revision":2,"seq":1}} "#, #"{"ack":{"revision":02,"seq":1}}"#,
                      #"{"ack":{"revision":2,"seq":1.5}}"#, #"{"ack":{"revision":-2,"seq":1}}"#, #"{"ack":{"revision":2,"seq":1,"x":0}}"#,
                      #"{"ack":{"revision":1234567890123456789,"seq":1}}"#, #"{"ack":{"revision":2,"seq":}}"#, #"{"reject":{}}"#, ""] {
            #expect(ScriptFrames.ack(Array(other.utf8)) == nil, "\(other)")
        }
    }
}
