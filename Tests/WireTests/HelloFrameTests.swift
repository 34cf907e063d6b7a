import Testing
import TodoContract
@testable import Wire

/// The core reads a hello as clients write it by hand, and leaves anything else to the general
/// reader, which then says what is wrong.
@Suite("Hello frames")
struct HelloFrameTests {
    private func payload(_ frame: [UInt8]) -> [UInt8] { Array(frame.dropFirst(4)) }

    @Test("what the clients write is read back as the same hello", arguments: [
        Hello(role: .script, client: "4fe8f2f3-0b1c-4d2e-8f30-415263748596", name: "shell-client send", snapshot: false),
        Hello(role: .shell, client: "c", name: "shell-client attach"),
        Hello(role: .watcher, client: String(repeating: "w", count: 128), name: String(repeating: "n", count: 256)),
        Hello(protocolVersion: 2, role: .script, client: "c", name: ""),
        Hello(protocolVersion: -7, role: .script, client: "c", name: "n"),
    ])
    func asWritten(_ hello: Hello) throws {
        let payload = payload(ScriptFrames.hello(hello))
        #expect(HelloFrame.read(payload) == hello)
        #expect(try WireJSON.decode(ClientMessage<AppAction>.self, from: payload) == .hello(hello))
    }

    @Test("with whitespace, and snapshot said true", arguments: [
        #" { "hello" : { "client" : "c" , "name" : "n" , "protocol" : 1 , "role" : "shell" , "snapshot" : true } } "#,
    ])
    func otherSpacing(_ text: String) throws {
        let hello = try #require(HelloFrame.read(Array(text.utf8)))
        #expect(hello == Hello(role: .shell, client: "c", name: "n"))
    }

    @Test("anything unsure or wrong is left to the general reader", arguments: [
        #"{"hello":{"protocol":1,"role":"shell","client":"c","name":"n"}}"#,
        #"{"hello":{"client":"c\u0041","name":"n","protocol":1,"role":"script"}}"#,
        #"{"hello":{"client":"é","name":"n","protocol":1,"role":"script"}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1.0,"role":"script"}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":01,"role":"script"}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"admin"}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"shell","snapshot":false}}"#,
        #"{"hello":{"client":"","name":"n","protocol":1,"role":"script"}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"script","snapshot":0}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"script","extra":1}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"script"},"bye":{}}"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"script"}} x"#,
        #"{"hello":{"client":"c","name":"n","protocol":1,"role":"script"}"#,
        #"{"hello":{"client":"c","name":"n","protocol":99999999999999999999,"role":"script"}}"#,
    ])
    func leftToTheGeneralReader(_ text: String) {
        #expect(HelloFrame.read(Array(text.utf8)) == nil)
    }

    @Test("a client id or name too long is left to the general reader, which refuses it")
    func tooLong() {
        let client = String(repeating: "c", count: 129)
        let text = #"{"hello":{"client":"\#(client)","name":"n","protocol":1,"role":"script"}}"#
        #expect(HelloFrame.read(Array(text.utf8)) == nil)
        #expect((try? WireJSON.decode(ClientMessage<AppAction>.self, from: Array(text.utf8))) == nil)
    }
}
