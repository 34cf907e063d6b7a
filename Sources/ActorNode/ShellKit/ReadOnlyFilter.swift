import Wire

/// What `bridge --read-only` lets through: it reads the frames going both ways, passes on
/// every message a client needs to follow the state and look back at it (`hello`, `resync`,
/// `query`, `bye`, and everything the core sends), and answers each `action` itself with a `reject` `read_only`, which never
/// reaches the core. Its rejects go between the core's frames, never inside one, and never
/// before the core's first frame (the welcome): a client may send an action right after its
/// hello, and reads the welcome first.
///
/// A frame it cannot read as a client message is not passed on either: the client gets
/// `error` `bad_frame` and the bridge ends, as the core would do. No I/O here: the bridge feeds
/// it bytes and writes what it returns.
package struct ReadOnlyFilter {
    /// The reject code of an action sent through a read-only bridge.
    package static let rejectCode = "read_only"

    package init() {}

    private var fromClient = FrameDecoder(maximumFirstPayloadLength: 64 << 10)
    private var fromCore = FrameDecoder(maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
    /// Whether the client broke the framing or sent what is not a message: nothing more goes
    /// to the core, and the bridge ends once the error is written.
    package private(set) var isBroken = false
    /// Whether a frame of the core's went to the client; until one has, rejects wait here.
    private var coreSpoke = false
    private var heldForClient: [UInt8] = []

    /// What bytes from the client lead to.
    package struct Passage: Equatable {
        /// For the core.
        package var toCore: [UInt8] = []
        /// For the client (rejects, or the error that ends the bridge).
        package var toClient: [UInt8] = []

        package init() {}
    }

    /// Bytes from the client, in any chunks.
    package mutating func fromClient(_ bytes: some Collection<UInt8>) -> Passage {
        var passage = Passage()
        guard !isBroken else { return passage }
        fromClient.append(bytes)
        while true {
            let payload: [UInt8]
            do throws(FrameError) {
                guard let next = try fromClient.nextFrame() else { return passage }
                payload = next
            } catch {
                return broken(passage, ErrorMessage(.frameTooLarge, error.description))
            }
            let message: ClientMessage<JSONValue>
            do {
                message = try WireJSON.decode(ClientMessage<JSONValue>.self, from: payload)
            } catch {
                return broken(passage, ErrorMessage(.badFrame, "a frame is not a valid message: \(describeDecodingFailure(error))"))
            }
            if case let .action(request) = message {
                let reject = Reject(seq: request.seq, code: Self.rejectCode, message: "this connection is read-only (bridge --read-only): it can follow the state but not change it")
                let frame = Self.frame(ServerMessage<JSONValue>.reject(reject))
                if coreSpoke { passage.toClient += frame } else { heldForClient += frame }
            } else {
                passage.toCore += Self.framed(payload)
            }
        }
    }

    /// Bytes from the core, in any chunks: the whole frames among them, for the client (after
    /// the first, the rejects that waited for it).
    package mutating func fromCore(_ bytes: some Collection<UInt8>) -> [UInt8] {
        fromCore.append(bytes)
        var out: [UInt8] = []
        while let payload = try? fromCore.nextFrame() {
            out += Self.framed(payload)
            if !coreSpoke {
                coreSpoke = true
                out += heldForClient
                heldForClient = []
            }
        }
        return out
    }

    private mutating func broken(_ passage: Passage, _ error: ErrorMessage) -> Passage {
        isBroken = true
        var passage = passage
        passage.toClient += Self.frame(ServerMessage<JSONValue>.error(error))
        return passage
    }

    private static func frame(_ message: ServerMessage<JSONValue>) -> [UInt8] {
        framed((try? WireJSON.encode(message)) ?? [])
    }

    private static func framed(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        let start = Frame.beginFrame(in: &bytes)
        bytes += payload
        Frame.endFrame(in: &bytes, startingAt: start)
        return bytes
    }
}
