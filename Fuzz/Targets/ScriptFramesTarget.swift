import ActorNode
import Wire

/// `script-frames`: what a one-shot client reads and writes by hand (``ScriptFrames``).
///
/// - Reading: the hand reader of acks (`ScriptFrames.ack`) against the general reader
///   (``WireJSON`` decoding a `ServerMessage`): when it says yes, the general reader reads the
///   same ack. The whole input is tried as an ack's payload.
/// - Writing: a hello and an action made from the input (client id, name, protocol, role, seq,
///   and the action from what is left), written by hand, are byte for byte what ``WireJSON``
///   writes for them, and the general reader reads them back as they were (the action as the
///   same JSON); so is the core's ack (`ScriptFrames.ackFrame`), with a seq and a revision from
///   the input's first bytes, and the hand reader reads it back.
/// - A script's lines: the input as a line of words (`Words.split`, which reads what
///   `shell-client send -` is given) never traps.
public enum ScriptFramesTarget: FuzzTarget {
    public static let name = "script-frames"
    public static let summary = "ScriptFrames' ack reader agrees with the general reader; its hello, action and ack writers match WireJSON"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        try checkAck(input)
        var numbers = FuzzInput(input)
        // Numbers of every size up to 2^63 - 1, the largest whole number the wire carries.
        let ackSeq = (numbers.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & UInt64(Int64.max)) >> numbers.choice(below: 64)
        let ackRevision = (numbers.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & UInt64(Int64.max)) >> numbers.choice(below: 64)
        try checkAckWriter(seq: ackSeq, revision: ackRevision)
        _ = try? Words.split(String(decoding: input, as: UTF8.self))
        var choices = FuzzInput(input)
        let client = String(decoding: choices.bytes(choices.choice(below: 40)), as: UTF8.self)
        let name = String(decoding: choices.bytes(choices.choice(below: 40)), as: UTF8.self)
        let protocolVersion = Int(Int8(bitPattern: choices.byte()))
        let role = ClientRole.allCases[choices.choice(below: ClientRole.allCases.count)]
        let snapshot = choices.choice(below: 2) == 0
        // Up to the largest seq there is: WireJSON refuses to write a larger one.
        let seq = choices.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & ActionRequest<JSONValue>.maximumSeq
        let rest = choices.rest()
        let action = (try? JSONParser().parse(rest)) ?? .string(String(decoding: rest, as: UTF8.self))
        try checkHello(Hello(protocolVersion: protocolVersion, role: role, client: client, name: name, snapshot: snapshot))
        try checkAction(action, client: client, seq: seq)
    }

    static func checkAck(_ payload: [UInt8]) throws(FuzzFinding) {
        guard let quick = ScriptFrames.ack(payload) else { return }
        let general: ServerMessage<JSONValue>
        do {
            general = try WireJSON.decode(ServerMessage<JSONValue>.self, from: payload)
        } catch {
            throw FuzzFinding("the hand reader read \(quick) where the general reader refuses (\(describeDecodingFailure(error))): \(FindingText.text(payload))")
        }
        guard case let .ack(ack) = general, ack == quick else {
            throw FuzzFinding("the hand reader read \(quick) where the general reader reads \(general): \(FindingText.text(payload))")
        }
    }

    static func checkAckWriter(seq: UInt64, revision: UInt64) throws(FuzzFinding) {
        let written = try payload(of: ScriptFrames.ackFrame(seq: seq, revision: revision))
        let ack = Ack(seq: seq, revision: revision)
        guard let general = try? WireJSON.encode(ServerMessage<JSONValue>.ack(ack)) else {
            throw FuzzFinding("WireJSON cannot write \(ack)")
        }
        guard written == general else {
            throw FuzzFinding("the ack written by hand is \(FindingText.text(written)), WireJSON writes \(FindingText.text(general))")
        }
        // The hand reader takes numbers below 10^18 and leaves the rest to the general reader.
        let inRange = seq < 1_000_000_000_000_000_000 && revision < 1_000_000_000_000_000_000
        let read = ScriptFrames.ack(written)
        guard read == (inRange ? ack : nil) else {
            throw FuzzFinding("the ack written by hand reads back as \(String(describing: read)), not \(ack)")
        }
    }

    static func checkHello(_ hello: Hello) throws(FuzzFinding) {
        let written = try payload(of: ScriptFrames.hello(hello))
        guard let general = try? WireJSON.encode(ClientMessage<JSONValue>.hello(hello)) else {
            throw FuzzFinding("WireJSON cannot write \(hello)")
        }
        guard written == general else {
            throw FuzzFinding("the hello written by hand is \(FindingText.text(written)), WireJSON writes \(FindingText.text(general))")
        }
        // What the core refuses (an empty or oversized id or name) is refused by both alike.
        if case let .hello(read)? = try? WireJSON.decode(ClientMessage<JSONValue>.self, from: written), read != hello {
            throw FuzzFinding("the hello written by hand reads back as \(read), not \(hello)")
        }
    }

    static func checkAction(_ action: JSONValue, client: String, seq: UInt64) throws(FuzzFinding) {
        guard let actionText = try? JSONSerializer.serialize(action) else { return }
        let framed: [UInt8]
        do {
            framed = try ScriptFrames.action(actionText, client: client, seq: seq)
        } catch {
            throw FuzzFinding("a \(actionText.count)-byte action cannot be framed: \(error)")
        }
        let written = try payload(of: framed)
        let request = ActionRequest(client: client, seq: seq, action: action)
        guard let general = try? WireJSON.encode(ClientMessage<JSONValue>.action(request)) else {
            throw FuzzFinding("WireJSON cannot write \(request)")
        }
        guard written == general else {
            throw FuzzFinding("the action written by hand is \(FindingText.text(written)), WireJSON writes \(FindingText.text(general))")
        }
        // Compared as text: a double with a whole value (1.0) is written `1`, and reads back as
        // an integer, the same JSON.
        if case let .action(read)? = try? WireJSON.decode(ClientMessage<JSONValue>.self, from: written),
           read.client != client || read.seq != seq || (try? WireJSON.encode(ClientMessage<JSONValue>.action(read))) != written {
            throw FuzzFinding("the action written by hand reads back as \(read), not \(request)")
        }
    }

    /// A frame's payload, its length prefix checked.
    private static func payload(of frame: [UInt8]) throws(FuzzFinding) -> [UInt8] {
        let announced = frame.prefix(Frame.headerLength).reduce(0) { $0 << 8 | Int($1) }
        guard frame.count >= Frame.headerLength, announced == frame.count - Frame.headerLength else {
            throw FuzzFinding("a frame written by hand announces \(announced) bytes and carries \(frame.count - Frame.headerLength): \(FindingText.text(frame))")
        }
        return Array(frame.dropFirst(Frame.headerLength))
    }
}
