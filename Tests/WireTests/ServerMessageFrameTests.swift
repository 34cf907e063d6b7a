import Testing
import Wire

/// ``ServerMessage/frame()``, the frame of every message the core does not write by hand: the
/// general encoder's JSON with its length prefix, which the general reader reads back; a
/// message that cannot be written becomes an `internal_error` that says why.
@Suite("Server message frames")
struct ServerMessageFrameTests {
    private static let messages: [ServerMessage<JSONValue>] = [
        .ack(Ack(seq: 0, revision: UInt64(Int64.max))),
        .reject(Reject(seq: 1, code: "zero", message: "a \"reason\" \\ with escapes \u{1} é")),
        .rendition(Rendition(revision: 0, content: .patch([]))),
        .rendition(Rendition(revision: 3, content: .snapshot(.object(["a": .array([.integer(1)])])))),
        .notice(Notice(text: "")),
        .presence(Presence(shells: 0)),
        .error(ErrorMessage(.tooSlow, "read what the core sends")),
        .bye(Bye(reason: "stopping")),
        .welcome(Welcome(core: "c", pid: -1, shells: 0, revision: 0, snapshot: .string("s"))),
    ]

    @Test("the general encoder's bytes, framed, and read back by the general reader")
    func framed() throws {
        for message in Self.messages {
            let frame = message.frame()
            #expect(frame == (try Frame.encode(WireJSON.encode(message))), "\(message)")
            var decoder = FrameDecoder()
            decoder.append(frame)
            let payload = try #require(try decoder.nextFrame())
            #expect(try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) == message)
        }
    }

    @Test("a message that cannot be written becomes an internal_error saying so")
    func unwritable() throws {
        let frame = ServerMessage<Double>.rendition(Rendition(revision: 1, content: .snapshot(.nan))).frame()
        var decoder = FrameDecoder()
        decoder.append(frame)
        let payload = try #require(try decoder.nextFrame())
        guard case let .error(error) = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else {
            Issue.record("not an error: \(String(decoding: payload, as: UTF8.self))")
            return
        }
        #expect(error.code == ErrorCode.internalError.rawValue)
        #expect(error.message.hasPrefix("the core could not send a message: "))
    }
}
