import Wire

/// A welcome as it came: its envelope read, its state left as text until someone needs it.
/// `state` prints it as it came (``jsonLine()``), a watcher reads it as JSON (``document()``),
/// a shell decodes it (``state(as:)``); a script that only sends actions does nothing with it.
package struct ReceivedWelcome: Equatable, Sendable {
    /// The id of the core's run (a new one at each start).
    package let core: String
    /// The state's revision.
    package let revision: UInt64
    /// Shells and watchers attached.
    package let shells: Int
    /// The core's process id.
    package let pid: Int32
    /// The whole frame.
    package let payload: [UInt8]
    /// Where the state's text is in `payload`, when the frame was split (``WelcomeFrame``).
    package let snapshot: Range<Int>?

    /// The state, decoded; when it does not decode, the failure as the general reader reports
    /// the frame.
    /// - Parameter type: the app's state type.
    package func state<State: Codable & Sendable>(as type: State.Type) throws(LinkError) -> State {
        // The state's text alone, when the frame was split: no envelope to read again.
        if let snapshot, let state = try? WireJSON.decode(State.self, from: payload[snapshot]) { return state }
        return try generalSnapshot(State.self)
    }

    /// The state as JSON, as the core sent it.
    package func document() throws(LinkError) -> JSONValue {
        if let snapshot, let json = try? WireJSON.decode(JSONValue.self, from: payload[snapshot]) { return json }
        return try generalSnapshot(JSONValue.self)
    }

    /// `state --json`'s line: the state as the core sent it with `"revision"` set at its top
    /// level, when the core sent it in the wire's canonical form (every core built on this
    /// framework does), which makes it the same bytes as decoding the state and writing it
    /// again (``StateJSON/line(_:revision:)``); nil otherwise.
    package func jsonLine() -> [UInt8]? {
        guard let snapshot else { return nil }
        let revisionText = Array(String(revision).utf8)
        guard var line = CanonicalJSON.setting("revision", to: revisionText, in: payload[snapshot]) else { return nil }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The state, with the frame read the general way, which also says what is wrong with it.
    /// A welcome without a snapshot (which only a hello that asked for none gets) is a
    /// protocol error here: whoever asks for the state wanted one.
    private func generalSnapshot<State: Codable & Sendable>(_ type: State.Type) throws(LinkError) -> State {
        do {
            guard case let .welcome(welcome) = try WireJSON.decode(ServerMessage<State>.self, from: payload) else {
                throw LinkError.protocolError(ErrorMessage(.unexpectedMessage, "the core answered hello with another message instead of welcome"))
            }
            guard let snapshot = welcome.snapshot else {
                throw LinkError.protocolError(ErrorMessage(.badFrame, "the core's welcome has no snapshot, though this client asked for the state"))
            }
            return snapshot
        } catch let error as LinkError {
            throw error
        } catch {
            throw .protocolError(ClientMachine.notAMessage(describeDecodingFailure(error)))
        }
    }
}
