import Testing
@testable import ActorNode
import Wire

/// `bridge --read-only`'s filter, bytes in and bytes out: what goes to the core and what the
/// client is answered, however the bytes are cut.
@Suite("The read-only bridge's filter")
struct ReadOnlyFilterTests {
    private func frame(_ json: String) -> [UInt8] {
        (try? Frame.encode(Array(json.utf8))) ?? []
    }

    private let hello = #"{"hello":{"protocol":1,"role":"shell","client":"c","name":"n"}}"#
    private let welcome = #"{"welcome":{"core":"k","pid":1,"protocol":1,"revision":0,"shells":0}}"#

    @Test("an action right after the hello: its reject waits for the core's welcome, and follows it")
    func beforeWelcome() throws {
        var filter = ReadOnlyFilter()
        let action = frame(#"{"action":{"client":"c","seq":1,"action":{"add":{"text":"x"}}}}"#)
        let passage = filter.fromClient(frame(hello) + action)
        #expect(passage.toCore == frame(hello))
        #expect(passage.toClient.isEmpty)
        let out = filter.fromCore(frame(welcome))
        let reject = frame(#"{"reject":{"code":"read_only","message":"this connection is read-only (bridge --read-only): it can follow the state but not change it","seq":1}}"#)
        #expect(out == frame(welcome) + reject)
        // From then on, at once.
        #expect(filter.fromClient(frame(#"{"action":{"client":"c","seq":2,"action":{"add":{"text":"y"}}}}"#)).toClient.count == reject.count)
    }

    @Test("a hello, two actions and a bye, cut at every byte: the hello and the bye reach the core unchanged, each action gets its reject, in order")
    func session() throws {
        let stream = frame(hello) + frame(#"{"action":{"client":"c","seq":1,"action":{"add":{"text":"x"}}}}"#)
            + frame(#"{"action":{"client":"c","seq":2,"action":"anything at all"}}"#) + frame(#"{"bye":{}}"#)
        var filter = ReadOnlyFilter()
        #expect(filter.fromCore(frame(welcome)) == frame(welcome))
        var passage = ReadOnlyFilter.Passage()
        for byte in stream {
            let more = filter.fromClient([byte])
            passage.toCore += more.toCore
            passage.toClient += more.toClient
        }
        #expect(passage.toCore == frame(hello) + frame(#"{"bye":{}}"#))
        var answers = FrameDecoder()
        answers.append(passage.toClient)
        var rejects: [Reject] = []
        while let payload = try answers.nextFrame() {
            guard case let .reject(reject) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else {
                Issue.record("not a reject: \(String(decoding: payload, as: UTF8.self))")
                continue
            }
            rejects.append(reject)
        }
        #expect(rejects.map(\.seq) == [1, 2])
        #expect(rejects.allSatisfy { $0.code == "read_only" && $0.message.hasPrefix("this connection is read-only") })
        #expect(!filter.isBroken)
    }

    @Test("what is not a message ends the bridge with bad_frame, and nothing after it reaches the core")
    func notAMessage() throws {
        var filter = ReadOnlyFilter()
        let passage = filter.fromClient(frame(hello) + frame(#"{"sing":{}}"#) + frame(#"{"bye":{}}"#))
        #expect(passage.toCore == frame(hello))
        #expect(filter.isBroken)
        var answers = FrameDecoder()
        answers.append(passage.toClient)
        let payload = try #require(try answers.nextFrame())
        guard case let .error(error) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else {
            Issue.record("not an error")
            return
        }
        #expect(error.code == "bad_frame")
        #expect(filter.fromClient(frame(hello)) == ReadOnlyFilter.Passage())
    }

    @Test("a first frame over 64 KiB is refused from its length alone, as the core refuses it")
    func firstFrameTooLarge() {
        var filter = ReadOnlyFilter()
        let passage = filter.fromClient([0, 1, 0x11, 0x71, UInt8(ascii: "{")])
        #expect(passage.toCore.isEmpty)
        #expect(String(decoding: passage.toClient.dropFirst(4), as: UTF8.self).contains("frame_too_large"))
        #expect(filter.isBroken)
    }

    @Test("the core's frames pass whole: a frame cut in three comes out once it is all there")
    func coreFrames() {
        let rendition = frame(#"{"rendition":{"revision":2,"patch":[]}}"#)
        var filter = ReadOnlyFilter()
        #expect(filter.fromCore(rendition[..<3]).isEmpty)
        #expect(filter.fromCore(rendition[3 ..< 10]).isEmpty)
        #expect(filter.fromCore(rendition[10...] + rendition) == rendition + rendition)
    }
}
