/// The one line a bridge (`shell-client bridge`, run by ssh on the core's machine) writes on
/// its standard output once it has reached the core, before the protocol's first byte:
/// `cama-bridge 1\n`, the protocol version of the bridge's side.
///
/// It lets the client on the other end of ssh tell the way to the core from the protocol: ssh
/// and the bridge are up and a core answered (the greeting came), the remote command failed
/// (ssh ended first, its stderr says why), or something printed on the remote's stdout before
/// the bridge started (a shell startup file that writes for non-interactive ssh), which would
/// otherwise read as a frame of absurd length.
package enum BridgeGreeting {
    /// What the line starts with.
    package static let word = "cama-bridge"
    /// The most bytes read looking for the end of the line: anything longer is not a greeting.
    package static let longest = 256

    /// The line this side writes.
    package static var line: [UInt8] { Array("\(word) \(ProtocolVersion.current)\n".utf8) }

    /// What the first bytes from a bridge are.
    package enum Reading: Equatable, Sendable {
        /// A greeting, with the protocol version the bridge's side speaks.
        case greeting(protocolVersion: Int)
        /// Something else came first: the first line (at most ``longest`` bytes, decoded
        /// leniently; escape it before showing it).
        case noise(String)
        /// No whole line yet: read more.
        case incomplete
    }

    /// Reads the first line of `bytes`.
    /// - Parameter bytes: what came so far, from the first byte.
    /// - Returns: what it is, and how many bytes it took (the line and its newline; the protocol
    ///   starts after them). Nothing is taken unless a greeting was read.
    package static func read(_ bytes: some Collection<UInt8>) -> (Reading, consumed: Int) {
        let head = bytes.prefix(longest + 1)
        guard let end = head.firstIndex(of: UInt8(ascii: "\n")) else {
            return head.count > longest ? (.noise(String(decoding: head.prefix(longest), as: UTF8.self)), 0) : (.incomplete, 0)
        }
        let line = Array(head[head.startIndex ..< end])
        let consumed = line.count + 1
        let expected = Array("\(word) ".utf8)
        guard line.count > expected.count, line.starts(with: expected) else {
            return (.noise(String(decoding: line, as: UTF8.self)), 0)
        }
        let digits = line[expected.count...]
        guard digits.count <= 9, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return (.noise(String(decoding: line, as: UTF8.self)), 0)
        }
        let version = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (.greeting(protocolVersion: version), consumed)
    }
}
