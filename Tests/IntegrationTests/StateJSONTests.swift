import ActorNode
import Glibc
import Testing
import Wire

/// `state --json` prints the state as the core sent it, with its revision added, instead of
/// decoding it and writing it again: the line must stay byte for byte what decoding and writing
/// printed (what `watch --json` still prints), whatever the texts hold.
@Suite("state --json, byte for byte")
struct StateJSONTests {
    @Test("texts with quotes, backslashes and any script; a number with a fraction: the same line as watch --json", .timeLimit(.minutes(1)))
    func sameLine() async throws {
        let sandbox = try Sandbox()
        _ = try await sandbox.startCore()
        // (The core refuses control characters in texts; their escapes are WireTests' business.)
        let texts = ["say \"hi\"", #"back\slash"#, "a/b", "--socket", "naïve 買 😀", "nbsp \u{A0}, zwj \u{200D}, é decomposed e\u{301}", "{\"not\":\"json\"}", "x"]
        for text in texts {
            let result = try await sandbox.run(.shellClient, ["--socket", sandbox.socket, "send", "add", "--", text])
            #expect(result.status == 0, "\(result)")
        }
        for words in [["toggle", "2"], ["counter", "set", "-7"], ["timer", "start", "3", "--seconds", "600"]] {
            let result = try await sandbox.run(.shellClient, ["send"] + words + ["--socket", sandbox.socket])
            #expect(result.status == 0, "\(result)")
        }
        // The focus ticks every second: compare two readings made between the same two ticks.
        var state = try await sandbox.client("state", "--json")
        var watched = try await sandbox.client("watch", "--json", "--count", "1")
        for _ in 0 ..< 10 where state.output != watched.output {
            state = try await sandbox.client("state", "--json")
            watched = try await sandbox.client("watch", "--json", "--count", "1")
        }
        #expect(state.status == 0 && watched.status == 0, "\(state) \(watched)")
        #expect(state.output == watched.output)
        #expect(state.output.hasPrefix(#"{"counter":{"value":-7},"revision":"#), "\(state.output)")
        #expect(state.output.contains(#","timer":{"deadline":1"#) && state.output.contains(#""running":true"#), "\(state.output)")
        #expect(state.output.contains(#""text":"say \"hi\"""#) && state.output.contains(#""text":"back\\slash""#), "\(state.output)")
        #expect(state.output.hasSuffix("\"nextId\":9}}\n"), "\(state.output)")
    }
}
