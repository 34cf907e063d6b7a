import Wire

/// Moves messages between a socket connection and channels: frames in, decoded messages out,
/// and the reverse. The same two loops serve the core's side and the shell's side.
enum FramePump {
    /// How reading ended, when it did not end cleanly.
    enum ReadFailure: Error {
        /// A frame's payload was not a valid message.
        case undecodable(String)
        /// The byte stream broke the framing (too large, truncated).
        case framing(FrameError)
        /// The connection failed or was closed on this side.
        case connection(ConnectionError)
    }

    /// Reads frames until the stream ends, passing each to `deliver` (which returns false to
    /// stop). A decoding error ends the loop unless `decode` handles it itself.
    static func readLoop<Message: Decodable>(
        from connection: SocketConnection,
        as type: Message.Type,
        deliver: (Message) async -> Bool,
        recover: (any Error) async -> Bool = { _ in false }
    ) async -> ReadFailure? {
        await readLoop(from: connection, as: type, deliver: { message, _ in await deliver(message) }, recover: { error, _ in await recover(error) })
    }

    /// ``readLoop(from:as:deliver:recover:)``, telling `deliver` and `recover` each frame's
    /// size on the wire (its 4-byte prefix included).
    static func readLoop<Message: Decodable>(
        from connection: SocketConnection,
        as type: Message.Type,
        deliver: (Message, Int) async -> Bool,
        recover: (any Error, Int) async -> Bool
    ) async -> ReadFailure? {
        while true {
            let payload: [UInt8]
            do {
                guard let frame = try await connection.readFrame() else { return nil }
                payload = frame
            } catch {
                if case let .frame(frameError) = error { return .framing(frameError) }
                return .connection(error)
            }
            let size = payload.count + Frame.headerLength
            do {
                let message = try WireJSON.decode(Message.self, from: payload)
                guard await deliver(message, size) else { return nil }
            } catch {
                if await recover(error, size) { continue }
                return .undecodable(Self.describe(error))
            }
        }
    }

    /// How writing ended, when it did not end cleanly.
    enum WriteFailure: Error {
        /// A message could not be turned into a frame (this side's bug, or a state too large).
        case encoding(String)
        case connection(ConnectionError)
    }

    /// Sends every message from `source` until it ends or the connection fails.
    static func writeLoop<Message: Encodable & Sendable>(
        from source: some Receiving<Message>,
        to connection: SocketConnection
    ) async -> WriteFailure? {
        while let message = await source.receive() {
            let frame: [UInt8]
            do {
                frame = try Frame.encode(WireJSON.encode(message), maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
            } catch {
                return .encoding("could not encode a message: \(error)")
            }
            do {
                try await connection.write(frame)
            } catch {
                return .connection(error)
            }
        }
        return nil
    }

    /// The frame of an `error` message, for the rare moment one must be sent outside the
    /// normal flow (a refused peer, a message that could not be encoded).
    static func errorFrame(_ code: ErrorCode, _ message: String) -> [UInt8] {
        let error = ServerMessage<JSONValue>.error(ErrorMessage(code, message))
        return (try? Frame.encode(WireJSON.encode(error))) ?? []
    }

    static func describe(_ error: any Error) -> String {
        describeDecodingFailure(error)
    }
}
