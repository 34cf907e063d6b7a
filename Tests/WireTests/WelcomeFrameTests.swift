import Testing
import TodoContract
import Wire

/// A welcome is split into its envelope, read as the general reader reads it, and its state,
/// located and left as text; anything unsure is left to the general reader.
@Suite("Welcome frames")
struct WelcomeFrameTests {
    private static let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "a } ] \" \\ {")], nextId: 2))

    @Test("a welcome as the core writes it: the envelope decoded, the state's text located exactly")
    func asWritten() throws {
        let welcome = Welcome(core: "c0", pid: 42, shells: 3, revision: 9, snapshot: Self.state)
        let payload = try WireJSON.encode(ServerMessage<AppState>.welcome(welcome))
        let split = try #require(WelcomeFrame.split(payload))
        #expect(split.core == "c0")
        #expect(split.pid == 42)
        #expect(split.shells == 3)
        #expect(split.revision == 9)
        #expect(split.protocolVersion == ProtocolVersion.current)
        #expect(Array(payload[try #require(split.snapshot)]) == (try WireJSON.encode(Self.state)))
    }

    @Test("a welcome without a snapshot (its hello asked for none) splits, as the general reader reads it")
    func withoutSnapshot() throws {
        let welcome = Welcome<AppState>(core: "c0", pid: 42, shells: 0, revision: 9, snapshot: nil)
        let payload = try WireJSON.encode(ServerMessage<AppState>.welcome(welcome))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"welcome":{"core":"c0","pid":42,"protocol":1,"revision":9,"shells":0}}"#)
        let split = try #require(WelcomeFrame.split(payload))
        #expect(split.snapshot == nil)
        #expect(split.revision == 9 && split.core == "c0" && split.pid == 42 && split.shells == 0)
        guard case let .welcome(general) = try WireJSON.decode(ServerMessage<AppState>.self, from: payload) else { Issue.record("not a welcome"); return }
        #expect(general.snapshot == nil)
        // A snapshot that is there, even null, is not "none".
        let null = Array(#"{"welcome":{"core":"c0","pid":42,"protocol":1,"revision":9,"shells":0,"snapshot":null}}"#.utf8)
        #expect(WelcomeFrame.split(null)?.snapshot != nil)
        guard case let .welcome(nullWelcome) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: null) else { Issue.record("not a welcome"); return }
        #expect(nullWelcome.snapshot == .some(.null))
    }

    @Test("its members in any order, with whitespace, and a state of any kind")
    func otherShapes() throws {
        let frames = [
            #" { "welcome" : { "snapshot" : {"a":[1,{"b":"]"}]} , "revision" : 5 , "core" : "c" , "pid" : 1 , "protocol" : 1 , "shells" : 0 } } "#,
            #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":"text, with a comma"}}"#,
            #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"snapshot":12.5e3,"shells":0}}"#,
        ]
        let states = [#"{"a":[1,{"b":"]"}]}"#, #""text, with a comma""#, "12.5e3"]
        for (frame, state) in zip(frames, states) {
            let payload = Array(frame.utf8)
            let split = try #require(WelcomeFrame.split(payload), "\(frame)")
            #expect(split.revision == 5)
            // What it read is what the general reader reads.
            guard case let .welcome(general) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else { Issue.record("not a welcome"); return }
            #expect(general.revision == split.revision && general.core == split.core && general.pid == split.pid && general.shells == split.shells)
            #expect(String(decoding: payload[try #require(split.snapshot)], as: UTF8.self) == state)
        }
    }

    @Test("a state nested up to 64 levels is located; deeper, the frame is left to the general reader")
    func nesting() throws {
        func frame(depth: Int) -> [UInt8] {
            let state = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            return Array(#"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":\#(state)}}"#.utf8)
        }
        let located = try #require(WelcomeFrame.split(frame(depth: 64)))
        #expect(located.snapshot?.count == 128)
        #expect(WelcomeFrame.split(frame(depth: 65)) == nil)
    }

    @Test("anything unsure is left to the general reader", arguments: [
        #"{"ack":{"revision":1,"seq":1}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{},"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapsho\u0074":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":-5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{"a":[}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{"a":1}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{}}} x"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{}},"x":1}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{},"extra":1}}"#,
        #"{"welcome":{"core":"c\u0041","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":01,"protocol":1,"revision":5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1.0,"revision":5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":4294967296,"protocol":1,"revision":5,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":1234567890123456789,"shells":0,"snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":"0","snapshot":{}}}"#,
        #"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":5,"shells":0,"snapshot":}}"#,
    ])
    func unsure(_ frame: String) {
        #expect(WelcomeFrame.split(Array(frame.utf8)) == nil)
    }
}
