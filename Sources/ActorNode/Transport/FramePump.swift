import Wire

/// Frames the core writes outside the normal flow of its output.
enum FramePump {
    /// The frame of an `error` message, for the rare moment one must be sent outside the
    /// normal flow (a refused peer, a message that could not be encoded).
    static func errorFrame(_ code: ErrorCode, _ message: String) -> [UInt8] {
        let error = ServerMessage<JSONValue>.error(ErrorMessage(code, message))
        return (try? Frame.encode(WireJSON.encode(error))) ?? []
    }
}
