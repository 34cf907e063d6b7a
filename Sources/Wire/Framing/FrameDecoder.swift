/// Cuts a byte stream into frame payloads, however the bytes arrive: a byte at a time,
/// several frames in one read, or a frame split across many reads.
///
/// The announced length is checked against ``maximumPayloadLength`` as soon as the 4 prefix
/// bytes are in, before anything is reserved for the payload; the decoder only ever holds bytes
/// that were actually received. After an error the decoder stays failed.
package struct FrameDecoder: Sendable {
    /// The largest payload accepted.
    package let maximumPayloadLength: Int
    /// The largest payload accepted for the first frame (a client's hello, which is small), if
    /// it has a limit of its own.
    package let maximumFirstPayloadLength: Int?
    private var framesTaken = 0

    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failure: FrameError?

    /// - Parameters:
    ///   - maximumPayloadLength: the largest payload accepted (at most
    ///     ``Frame/absoluteMaximumPayloadLength``).
    ///   - maximumFirstPayloadLength: a smaller limit for the first frame only, or nil.
    package init(maximumPayloadLength: Int = Frame.defaultMaximumPayloadLength, maximumFirstPayloadLength: Int? = nil) {
        let limit = min(maximumPayloadLength, Frame.absoluteMaximumPayloadLength)
        self.maximumPayloadLength = limit
        self.maximumFirstPayloadLength = maximumFirstPayloadLength.map { min($0, limit) }
    }

    /// Bytes received but not yet returned as part of a frame.
    /// (Stored, not worked out from the buffer: another module reads a stored property of a
    /// decoder kept in a class in place, where calling a getter would copy the whole decoder
    /// out first, and the core asks at every action.)
    package private(set) var bufferedByteCount = 0

    /// Whether the stream has stopped inside a frame (so far).
    package var hasPartialFrame: Bool { bufferedByteCount > 0 }

    /// Adds received bytes. Call ``nextFrame()`` until it returns nil to take the frames out.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
        bufferedByteCount = buffer.count - readIndex
    }

    /// Adds received bytes from raw memory (the read path of a socket).
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfWorthwhile()
        buffer.append(contentsOf: bytes)
        bufferedByteCount = buffer.count - readIndex
    }

    /// The next complete payload, or nil when more bytes are needed.
    package mutating func nextFrame() throws(FrameError) -> [UInt8]? {
        let frame: [UInt8]
        do {
            guard let payload = try nextPayload() else { return nil }
            frame = Array(payload)
        }
        // The payload is copied and let go: the storage is not shared when it is emptied.
        forgetDrained()
        return frame
    }

    /// The next complete payload as a slice of the bytes the decoder holds: no copy, for a
    /// reader that is done with each payload before it asks for the next (the core, at every
    /// action). The slice shares the decoder's storage: while it is kept, the next bytes
    /// appended make the decoder copy what it holds. (Emptied storage is kept until the next
    /// call or append, so that it is not copied for the slice handed out.)
    package mutating func nextFrameSlice() throws(FrameError) -> ArraySlice<UInt8>? {
        forgetDrained()
        return try nextPayload()
    }

    private mutating func nextPayload() throws(FrameError) -> ArraySlice<UInt8>? {
        if let failure { throw failure }
        guard bufferedByteCount >= Frame.headerLength else { return nil }
        let length = Self.announcedLength(in: buffer, at: readIndex)
        let limit = framesTaken == 0 ? maximumFirstPayloadLength ?? maximumPayloadLength : maximumPayloadLength
        guard length <= limit else {
            let error = FrameError.payloadTooLarge(length: length, limit: limit)
            failure = error
            buffer = []
            readIndex = 0
            bufferedByteCount = 0
            throw error
        }
        let payloadStart = readIndex + Frame.headerLength
        guard buffer.count - payloadStart >= length else { return nil }
        readIndex = payloadStart + length
        bufferedByteCount = buffer.count - readIndex
        framesTaken += 1
        return buffer[payloadStart ..< payloadStart + length]
    }

    /// Once every byte received was handed out, empties the storage (keeping up to 1 MB of it).
    private mutating func forgetDrained() {
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            readIndex = 0
        }
    }

    /// Call when the stream has ended: throws ``FrameError/truncated(received:expected:)`` if
    /// the stream stopped inside a frame.
    package func finish() throws(FrameError) {
        if let failure { throw failure }
        let buffered = bufferedByteCount
        guard buffered > 0 else { return }
        if buffered < Frame.headerLength {
            throw .truncated(received: buffered, expected: nil)
        }
        throw .truncated(received: buffered, expected: Frame.headerLength + announcedLength())
    }

    /// The length the header at the read index announces (its 4 bytes must be in).
    private func announcedLength() -> Int {
        Self.announcedLength(in: buffer, at: readIndex)
    }

    /// The length the header at `index` of `buffer` announces. Static: a mutating method that
    /// called the method above made a copy of the whole decoder to call it on (a retain and a
    /// release, about 90 instructions, at every frame the core read).
    private static func announcedLength(in buffer: [UInt8], at index: Int) -> Int {
        buffer.withUnsafeBufferPointer { bytes in
            var length = 0
            for offset in 0 ..< Frame.headerLength {
                length = length << 8 | Int(bytes[index + offset])
            }
            return length
        }
    }

    private mutating func compactIfWorthwhile() {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0 ..< readIndex)
            readIndex = 0
        }
    }
}
