/// A `welcome` frame read in two parts: the envelope (who the core is, the revision), read by
/// hand, and the state only located, not read. A client that does not need the state (one that
/// only sends actions) or needs only its text (to print it as it came) thereby does no work in
/// proportion to the state's size beyond one pass over its bytes, and no `Codable` work at all.
///
/// It only says yes to a welcome whose envelope holds exactly the members of a welcome (the
/// five of its envelope, and the snapshot unless the hello asked for none), each once, each value in its plain form (the core id printable ASCII without escapes, the
/// numbers whole, without leading zeros, below 10^18), as the core writes them; the general
/// reader (``WireJSON`` decoding a ``ServerMessage``) reads such a frame the same way. Anything
/// else is nil, and the caller reads the frame the general way, which also says what is wrong.
/// The state's own text is not checked at all.
package struct WelcomeFrame: Sendable, Equatable {
    /// The core's protocol version.
    package var protocolVersion: Int
    /// The id of this run of the core.
    package var core: String
    /// The core's process id.
    package var pid: Int32
    /// The shells and watchers attached.
    package var shells: Int
    /// The revision of the state.
    package var revision: UInt64
    /// Where the state's JSON text is in the frame; nil when the welcome has none (the hello
    /// asked for none: ``Hello/snapshot``).
    package var snapshot: Range<Int>?

    /// Splits `payload`, a frame from the core, if it is a `welcome` in its plain form:
    /// `{"welcome":{…,"snapshot":STATE,…}}`, its members in any order (the snapshot may be
    /// missing).
    /// - Parameter payload: the frame's payload.
    /// - Returns: the envelope and where the state is, or nil.
    package static func split(_ payload: [UInt8]) -> WelcomeFrame? {
        payload.withUnsafeBufferPointer { buffer in
            var scanner = FrameScanner(bytes: buffer)
            return scanner.welcome()
        }
    }
}

extension WelcomeFrame {
    /// `{"welcome":{"core":…,"pid":N,"protocol":N,"revision":R,"shells":N,"snapshot":STATE}}`,
    /// framed: the core's welcome, written by hand around the state's JSON text, byte for byte
    /// what ``WireJSON`` writes for ``ServerMessage/welcome(_:)`` holding that state (keys
    /// sorted). The core encodes a state once per revision and welcomes every client at that
    /// revision with the same text; ``split(_:)`` reads the envelope back. Without a snapshot
    /// the member is left out, as the general encoder leaves out a nil one.
    /// - Parameters:
    ///   - protocolVersion: the core's protocol version.
    ///   - core: the id of this run of the core.
    ///   - pid: the core's process id.
    ///   - shells: the shells and watchers attached.
    ///   - revision: the state's revision.
    ///   - snapshot: the state's JSON text, as ``WireJSON`` writes it; nil for none.
    package static func frame(
        protocolVersion: Int = ProtocolVersion.current, core: String, pid: Int32, shells: Int, revision: UInt64, snapshot: [UInt8]?
    ) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity((snapshot?.count ?? 0) + core.utf8.count + 160)
        let start = Frame.beginFrame(in: &frame)
        frame += #"{"welcome":{"core":"#.utf8
        frame += JSONFragment.string(core)
        frame += #","pid":"#.utf8
        frame += String(pid).utf8
        frame += #","protocol":"#.utf8
        frame += String(protocolVersion).utf8
        frame += #","revision":"#.utf8
        JSONFragment.append(revision, to: &frame)
        frame += #","shells":"#.utf8
        frame += String(shells).utf8
        if let snapshot {
            frame += #","snapshot":"#.utf8
            frame += snapshot
        }
        frame += "}}".utf8
        Frame.endFrame(in: &frame, startingAt: start)
        return frame
    }
}

/// Reads a welcome's envelope by the structure of the text, and skips its state.
extension FrameScanner {
    static var welcomeKey: StaticString { #""welcome""# }
    /// The members' keys, quotes included; a member's bit in `seen` is its index here.
    static let welcomeKeys = [#""core""#, #""pid""#, #""protocol""#, #""revision""#, #""shells""#, #""snapshot""#].map { Array($0.utf8) }

    mutating func welcome() -> WelcomeFrame? {
        guard take(UInt8(ascii: "{")), takeExactly(Self.welcomeKey), take(UInt8(ascii: ":")), take(UInt8(ascii: "{")) else { return nil }
        var core = ""
        var pid: Int64 = 0, protocolVersion: Int64 = 0, revision: Int64 = 0, shells: Int64 = 0
        var snapshot: Range<Int>?
        var seen: UInt8 = 0
        while true {
            skipWhitespace()
            guard let keyRange = skipString(),
                  let member = Self.welcomeKeys.firstIndex(where: { $0.elementsEqual(UnsafeBufferPointer(rebasing: bytes[keyRange])) }),
                  seen & (1 << member) == 0
            else { return nil }
            seen |= 1 << member
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            switch member {
            case 0:
                guard let text = plainString() else { return nil }
                core = text
            case 5:
                guard let range = skipValue() else { return nil }
                snapshot = range
            default:
                guard let number = wholeNumber(allowingSign: member != 3) else { return nil }
                switch member {
                case 1: pid = number
                case 2: protocolVersion = number
                case 3: revision = number
                default: shells = number
                }
            }
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            break
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        // The five members of the envelope must all be there; the snapshot may not.
        guard position == bytes.count, seen & 0b01_1111 == 0b01_1111, let pid = Int32(exactly: pid) else { return nil }
        return WelcomeFrame(protocolVersion: Int(protocolVersion), core: core, pid: pid, shells: Int(shells), revision: UInt64(revision), snapshot: snapshot)
    }
}
