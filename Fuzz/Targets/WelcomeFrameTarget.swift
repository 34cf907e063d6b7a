import Wire

/// `welcome-frame`: the one-shot client's split of a welcome (``WelcomeFrame/split(_:)``)
/// against the general reader (``WireJSON`` decoding a `ServerMessage`). The split reads the
/// envelope and only locates the state. When it says yes: if the general reader reads a
/// welcome, every field must be the same and the located text must parse to the same state
/// (or both must find no state); if the general reader refuses the frame, the located state
/// must be what is wrong with it (it does not parse), since the split vouches for everything
/// else. Every welcome the general
/// reader reads is written again by the core's hand writer
/// (``WelcomeFrame/frame(protocolVersion:core:pid:shells:revision:snapshot:)``), which must
/// write what ``WireJSON`` writes.
///
/// The input is the frame's payload.
public enum WelcomeFrameTarget: FuzzTarget {
    public static let name = "welcome-frame"
    public static let summary = "WelcomeFrame.split says yes only to what the general reader reads as the same welcome; the welcome writer matches WireJSON"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        if case let .welcome(welcome)? = try? WireJSON.decode(ServerMessage<JSONValue>.self, from: input) {
            try checkWriter(welcome)
        }
        guard let split = WelcomeFrame.split(input) else { return }
        var state: JSONValue?
        if let snapshot = split.snapshot {
            guard snapshot.lowerBound >= 0, snapshot.upperBound <= input.count else {
                throw FuzzFinding("the split's state range \(snapshot) is outside the \(input.count)-byte frame \(FindingText.text(input))")
            }
            // The state as deep as the general reader takes it inside `{"welcome":{"snapshot":…}}`.
            state = try? JSONParser(maximumDepth: JSONParser.defaultMaximumDepth - 2).parse(input[snapshot])
        }
        let general: ServerMessage<JSONValue>
        do {
            general = try WireJSON.decode(ServerMessage<JSONValue>.self, from: input)
        } catch {
            guard split.snapshot != nil, state == nil else {
                throw FuzzFinding("the split read \(split) with a state that parses, where the general reader refuses (\(describeDecodingFailure(error))): \(FindingText.text(input))")
            }
            return
        }
        guard case let .welcome(welcome) = general else {
            throw FuzzFinding("the split read a welcome where the general reader reads a \(general.name): \(FindingText.text(input))")
        }
        let same = welcome.protocolVersion == split.protocolVersion && welcome.core == split.core && welcome.pid == split.pid
            && welcome.shells == split.shells && welcome.revision == split.revision && state == welcome.snapshot
        guard same else {
            throw FuzzFinding("""
                the readers differ on \(FindingText.text(input)):
                  split:   protocol \(split.protocolVersion), core \(split.core), pid \(split.pid), shells \(split.shells), revision \(split.revision), state \(FindingText.json(state))
                  general: protocol \(welcome.protocolVersion), core \(welcome.core), pid \(welcome.pid), shells \(welcome.shells), revision \(welcome.revision), state \(FindingText.json(welcome.snapshot))
                """)
        }
    }

    static func checkWriter(_ welcome: Welcome<JSONValue>) throws(FuzzFinding) {
        var stateText: [UInt8]?
        if let snapshot = welcome.snapshot {
            guard let text = try? WireJSON.encode(snapshot) else { return }
            stateText = text
        }
        guard let general = try? Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.welcome(welcome)), maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        else { return }
        let written = WelcomeFrame.frame(
            protocolVersion: welcome.protocolVersion, core: welcome.core, pid: welcome.pid, shells: welcome.shells,
            revision: welcome.revision, snapshot: stateText)
        guard written == general else {
            throw FuzzFinding("the welcome written by hand is \(FindingText.text(written)), WireJSON writes \(FindingText.text(general))")
        }
    }
}
