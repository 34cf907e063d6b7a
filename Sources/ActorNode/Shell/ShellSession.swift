import Wire

/// One connection to a core as a shell's link uses it: the frames the core sent, in order, and
/// a channel for the bytes to send. The link's ``ClientMachine`` reads and writes them; the
/// session only carries them.
package struct ShellSession: Sendable {
    /// What came from the core: each frame's payload, then the end of the stream.
    package let inbound: any Receiving<SessionInput>
    /// Bytes to send (whole frames); closing it ends the connection.
    package let outbound: Chan<[UInt8]>

    /// - Parameters:
    ///   - inbound: the core's frames.
    ///   - outbound: where to put bytes to send.
    package init(inbound: any Receiving<SessionInput>, outbound: Chan<[UInt8]>) {
        self.inbound = inbound
        self.outbound = outbound
    }
}

/// One thing a session's reader got from the core.
package enum SessionInput: Sendable {
    /// A frame's payload.
    case frame([UInt8])
    /// The stream broke the framing (a frame too large, or cut short); nothing follows.
    case broken(FrameError)
}
