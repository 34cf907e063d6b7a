/// The frames a one-shot client (a script) writes, and the ack it reads, by hand: byte for byte
/// what ``WireJSON`` writes and what the core writes, without the `Codable` machinery, whose
/// first use in a process (type metadata made at run time, protocol conformances looked up)
/// costs more than the rest of a one-shot command. The action itself is the app's, and is
/// encoded as usual.
public enum ScriptFrames {
    /// `{"hello":{"client":…,"name":…,"protocol":N,"role":…}}`, framed.
    /// - Parameter hello: the hello.
    public static func hello(_ hello: Hello) -> [UInt8] {
        var payload = Array(#"{"hello":{"client":"#.utf8)
        payload += JSONFragment.string(hello.client)
        payload += #","name":"#.utf8
        payload += JSONFragment.string(hello.name)
        payload += #","protocol":"#.utf8
        payload += String(hello.protocolVersion).utf8
        payload += #","role":"#.utf8
        payload += JSONFragment.string(hello.role.rawValue)
        payload += "}}".utf8
        return framed(payload)
    }

    /// `{"action":{"action":ACTION,"client":…,"seq":N}}`, framed.
    /// - Parameters:
    ///   - action: the action's JSON text (``WireJSON/encode(_:)`` of it).
    ///   - client: the client id.
    ///   - seq: the action's sequence number.
    /// - Throws: ``FrameError/payloadTooLarge(length:limit:)`` for an action past what a frame
    ///   can carry.
    public static func action(_ action: [UInt8], client: String, seq: UInt64) throws(FrameError) -> [UInt8] {
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

    /// `{"bye":{}}`, framed.
    public static var bye: [UInt8] { framed(Array(#"{"bye":{}}"#.utf8)) }

    /// The ack in `payload` if it is written exactly as the core writes acks,
    /// `{"ack":{"revision":R,"seq":S}}` (plain whole numbers, no whitespace); nil for anything
    /// else, which the general reader reads.
    /// - Parameter payload: a frame's payload.
    public static func ack(_ payload: [UInt8]) -> Ack? {
        let head = Array(#"{"ack":{"revision":"#.utf8)
        let middle = Array(#","seq":"#.utf8)
        guard payload.count > head.count, payload.starts(with: head) else { return nil }
        var index = head.count
        guard let revision = wholeNumber(payload, &index), payload[index...].starts(with: middle) else { return nil }
        index += middle.count
        guard let seq = wholeNumber(payload, &index), payload.count == index + 2,
              payload[index] == UInt8(ascii: "}"), payload[index + 1] == UInt8(ascii: "}") else { return nil }
        return Ack(seq: seq, revision: revision)
    }

    /// 0 to 10^18 - 1, written plainly (no sign, no leading zero), at `index`.
    static func wholeNumber(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
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

    /// A small payload (a hello's client id and name are at most a few hundred bytes) framed.
    private static func framed(_ payload: [UInt8]) -> [UInt8] {
        let length = UInt32(truncatingIfNeeded: payload.count)
        return [UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)] + payload
    }
}
