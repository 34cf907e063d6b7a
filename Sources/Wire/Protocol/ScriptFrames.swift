/// The frames a one-shot client (a script) writes, and the ack it reads, by hand: byte for byte
/// what ``WireJSON`` writes and what the core writes, without the `Codable` machinery, whose
/// first use in a process (type metadata made at run time, protocol conformances looked up)
/// costs more than the rest of a one-shot command. The action itself is the app's, and is
/// encoded as usual. The ack's writer, the core's (an ack is the frame it writes most), is
/// here too, beside its reader.
package enum ScriptFrames {
    /// `{"hello":{"client":…,"name":…,"protocol":N,"role":…}}`, framed, with
    /// `"snapshot":false` last when the hello asks for no state.
    /// - Parameter hello: the hello.
    package static func hello(_ hello: Hello) -> [UInt8] {
        var frame: [UInt8] = []
        let start = Frame.beginFrame(in: &frame)
        frame += #"{"hello":{"client":"#.utf8
        frame += JSONFragment.string(hello.client)
        frame += #","name":"#.utf8
        frame += JSONFragment.string(hello.name)
        frame += #","protocol":"#.utf8
        frame += String(hello.protocolVersion).utf8
        frame += #","role":"#.utf8
        frame += JSONFragment.string(hello.role.rawValue)
        if !hello.snapshot { frame += #","snapshot":false"#.utf8 }
        frame += "}}".utf8
        Frame.endFrame(in: &frame, startingAt: start)
        return frame
    }

    /// `{"action":{"action":ACTION,"client":…,"seq":N}}`, framed.
    /// - Parameters:
    ///   - action: the action's JSON text (``WireJSON/encode(_:)`` of it).
    ///   - client: the client id.
    ///   - seq: the action's sequence number.
    /// - Throws: ``FrameError/payloadTooLarge(length:limit:)`` for an action past what a frame
    ///   can carry.
    package static func action(_ action: [UInt8], client: String, seq: UInt64) throws(FrameError) -> [UInt8] {
        var payload = Array(#"{"action":{"action":"#.utf8)
        payload.reserveCapacity(action.count + client.utf8.count + 48)
        payload += action
        payload += #","client":"#.utf8
        payload += JSONFragment.string(client)
        payload += #","seq":"#.utf8
        payload += String(seq).utf8
        payload += "}}".utf8
        return try Frame.encode(payload, maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
    }

    /// `{"resync":{"reason":…,"revision":R}}`, framed: a shell asks for the whole state.
    /// - Parameter resync: the revision whose patch did not apply, and why.
    package static func resync(_ resync: Resync) -> [UInt8] {
        var frame: [UInt8] = []
        let start = Frame.beginFrame(in: &frame)
        frame += #"{"resync":{"reason":"#.utf8
        frame += JSONFragment.string(resync.reason)
        frame += #","revision":"#.utf8
        frame += String(resync.revision).utf8
        frame += "}}".utf8
        Frame.endFrame(in: &frame, startingAt: start)
        return frame
    }

    /// A bye's payload as clients write it: `{"bye":{}}`.
    package static let byePayload = Array(#"{"bye":{}}"#.utf8)

    /// `{"bye":{}}`, framed.
    package static var bye: [UInt8] {
        var frame: [UInt8] = []
        let start = Frame.beginFrame(in: &frame)
        frame += byePayload
        Frame.endFrame(in: &frame, startingAt: start)
        return frame
    }

    private static var ackStart: StaticString { #"{"ack":{"revision":"# }
    private static var ackSeqKey: StaticString { #","seq":"# }

    /// `{"ack":{"revision":R,"seq":S}}`, framed: the core's ack, written by hand (it is the most
    /// frequent frame, and its JSON is fixed), byte for byte what ``WireJSON`` writes for
    /// ``ServerMessage/ack(_:)``. ``ack(_:)`` reads it back (below 10^18; the general reader
    /// reads any).
    /// - Parameters:
    ///   - seq: the acknowledged action's sequence number.
    ///   - revision: the revision it made (or made before, for a resend).
    package static func ackFrame(seq: UInt64, revision: UInt64) -> [UInt8] {
        var frame: [UInt8] = []
        frame.appendWritten(atMost: longestAckFrame) { writeAckFrame(seq: seq, revision: revision, to: &$0) }
        return frame
    }

    /// Appends ``ackFrame(seq:revision:)`` to `bytes` (a client's output), written in place.
    /// - Parameters:
    ///   - seq: the acknowledged action's sequence number.
    ///   - revision: the revision it made (or made before, for a resend).
    ///   - bytes: where it goes.
    package static func appendAckFrame(seq: UInt64, revision: UInt64, to bytes: inout ByteBuffer) {
        bytes.appendWritten(atMost: longestAckFrame) { writeAckFrame(seq: seq, revision: revision, to: &$0) }
    }

    /// The most bytes an ack's frame takes: the header, the two keys, two numbers of at most
    /// 20 digits and the closing braces.
    private static var longestAckFrame: Int {
        Frame.headerLength + ackStart.utf8CodeUnitCount + ackSeqKey.utf8CodeUnitCount + 42
    }

    private static func writeAckFrame(seq: UInt64, revision: UInt64, to cursor: inout ByteCursor) {
        cursor.writeFrame { payload in
            payload.write(ackStart)
            payload.writeDecimal(revision)
            payload.write(ackSeqKey)
            payload.writeDecimal(seq)
            payload.write("}}")
        }
    }

    /// The ack in `payload` if it is written exactly as the core writes acks,
    /// `{"ack":{"revision":R,"seq":S}}` (plain whole numbers, no whitespace); nil for anything
    /// else, which the general reader reads.
    /// - Parameter payload: a frame's payload.
    package static func ack(_ payload: [UInt8]) -> Ack? {
        payload.withUnsafeBufferPointer { ack($0) }
    }

    /// ``ack(_:)-([UInt8])`` of a payload that is a slice of what was received (no copy).
    /// - Parameter payload: a frame's payload.
    package static func ack(_ payload: ArraySlice<UInt8>) -> Ack? {
        payload.withUnsafeBufferPointer { ack($0) }
    }

    private static func ack(_ payload: UnsafeBufferPointer<UInt8>) -> Ack? {
        let head = UnsafeBufferPointer(start: ackStart.utf8Start, count: ackStart.utf8CodeUnitCount)
        let middle = UnsafeBufferPointer(start: ackSeqKey.utf8Start, count: ackSeqKey.utf8CodeUnitCount)
        guard payload.count > head.count, payload.starts(with: head) else { return nil }
        var index = head.count
        guard let revision = wholeNumber(payload, &index), payload[index...].starts(with: middle) else { return nil }
        index += middle.count
        guard let seq = wholeNumber(payload, &index), payload.count == index + 2,
              payload[index] == UInt8(ascii: "}"), payload[index + 1] == UInt8(ascii: "}") else { return nil }
        return Ack(seq: seq, revision: revision)
    }

    /// 0 to 10^18 - 1, written plainly (no sign, no leading zero), at `index`.
    static func wholeNumber(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") <= 9, index - start < 18 {
            value = value * 10 + UInt64(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        guard index == bytes.count || bytes[index] &- UInt8(ascii: "0") > 9 else { return nil }
        return value
    }
}
