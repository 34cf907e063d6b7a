import ActorNode
import Wire

/// `read-only-bridge`: ``ReadOnlyFilter``, what `bridge --read-only` makes of a client's bytes.
/// Whatever the bytes and however they are cut: nothing that reaches the core is an action
/// (every frame let through reads as a `hello`, `resync` or `bye`), each action is answered
/// with one `reject` `read_only` of its seq, in order; a stream that breaks the framing or is
/// not messages ends with one `error` and lets nothing more through; and the result is the
/// same fed whole or in chunks. The core's frames come through whole and unchanged. Before the
/// core's first frame (its welcome) no reject goes to the client: they wait, and follow it.
///
/// The input: a byte saying how many chunk sizes follow, the sizes, then the client's stream.
public enum ReadOnlyBridgeTarget: FuzzTarget {
    public static let name = "read-only-bridge"
    public static let summary = "bridge --read-only lets no action reach the core, answers each with read_only, and cuts the core's frames nowhere"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        var choices = FuzzInput(input)
        let sizes = choices.bytes(Int(choices.byte() % 8)).map { Int($0) % 32 + 1 }
        let stream = choices.rest()

        // The core has welcomed the client: rejects go straight back.
        guard let welcome = try? Frame.encode(Array(#"{"welcome":{"core":"c","pid":1,"protocol":1,"revision":0,"shells":0}}"#.utf8)) else {
            throw FuzzFinding("the welcome does not frame")
        }
        var whole = ReadOnlyFilter()
        _ = whole.fromCore(welcome)
        let once = whole.fromClient(stream)
        var pieces = ReadOnlyFilter()
        _ = pieces.fromCore(welcome)
        var chunked = ReadOnlyFilter.Passage()
        var offset = 0
        var turn = 0
        while offset < stream.count {
            let end = min(stream.count, offset + (sizes.isEmpty ? stream.count : sizes[turn % sizes.count]))
            let passage = pieces.fromClient(stream[offset ..< end])
            chunked.toCore += passage.toCore
            chunked.toClient += passage.toClient
            offset = end
            turn += 1
        }
        guard once == chunked, whole.isBroken == pieces.isBroken else {
            throw FuzzFinding("fed whole: \(once.toCore.count) bytes to the core, \(once.toClient.count) to the client; in chunks \(sizes): \(chunked.toCore.count) and \(chunked.toClient.count)")
        }

        // To the core: messages, none an action.
        var toCore = FrameDecoder(maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        toCore.append(once.toCore)
        while let payload = try? toCore.nextFrame() {
            guard let message = try? WireJSON.decode(ClientMessage<JSONValue>.self, from: payload) else {
                throw FuzzFinding("a frame that is not a message reached the core: \(String(decoding: payload, as: UTF8.self))")
            }
            if case .action = message { throw FuzzFinding("an action reached the core: \(String(decoding: payload, as: UTF8.self))") }
        }
        guard toCore.bufferedByteCount == 0 else { throw FuzzFinding("a partial frame reached the core") }

        // To the client: rejects read_only, then at most one error, the last frame.
        var toClient = FrameDecoder(maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        toClient.append(once.toClient)
        var answers: [ServerMessage<JSONValue>] = []
        while let payload = try? toClient.nextFrame() {
            guard let message = try? WireJSON.decode(ServerMessage<JSONValue>.self, from: payload) else {
                throw FuzzFinding("the bridge wrote a frame that is no message: \(String(decoding: payload, as: UTF8.self))")
            }
            answers.append(message)
        }
        for (index, answer) in answers.enumerated() {
            switch answer {
            case let .reject(reject) where reject.code == ReadOnlyFilter.rejectCode:
                continue
            case .error where index == answers.count - 1 && whole.isBroken:
                continue
            default:
                throw FuzzFinding("the bridge answered \(answer) (answer \(index + 1) of \(answers.count), broken: \(whole.isBroken))")
            }
        }

        // Before the welcome: the rejects wait, and follow the core's first frame.
        // (A broken stream gets its error at once, and the waiting rejects are dropped: the
        // bridge ends.)
        var early = ReadOnlyFilter()
        let beforeWelcome = early.fromClient(stream)
        guard beforeWelcome.toCore == once.toCore else { throw FuzzFinding("before the welcome, other bytes went to the core") }
        if early.isBroken {
            var decoder = FrameDecoder(maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
            decoder.append(beforeWelcome.toClient)
            let first = try? decoder.nextFrame()
            let alone = first != nil && decoder.bufferedByteCount == 0
            let isError = first.flatMap { try? WireJSON.decode(ServerMessage<JSONValue>.self, from: $0) }.map { if case .error = $0 { true } else { false } } ?? false
            guard alone, isError, once.toClient.suffix(beforeWelcome.toClient.count).elementsEqual(beforeWelcome.toClient) else {
                throw FuzzFinding("before the welcome, a broken stream got \(beforeWelcome.toClient.count) bytes, not its error alone")
            }
        } else {
            guard beforeWelcome.toClient.isEmpty else { throw FuzzFinding("before the welcome, \(beforeWelcome.toClient.count) bytes went to the client") }
            guard early.fromCore(welcome) == welcome + once.toClient else {
                throw FuzzFinding("the rejects that waited for the welcome did not follow it")
            }
        }
        // The core's side: its frames, in any chunks, come out whole and the same.
        var core = ReadOnlyFilter()
        let frames = try? Frame.encode(stream.prefix(200)) + Frame.encode(stream.suffix(50))
        guard let frames else { return }
        var out: [UInt8] = []
        var start = 0
        var piece = 0
        while start < frames.count {
            let end = min(frames.count, start + (sizes.isEmpty ? frames.count : sizes[piece % sizes.count]))
            out += core.fromCore(frames[start ..< end])
            start = end
            piece += 1
        }
        guard out == frames else { throw FuzzFinding("the core's frames came out as \(out.count) bytes, not the \(frames.count) sent") }
    }
}
