/// A `hello` frame read by hand, in the form clients built on this framework write it
/// (``ScriptFrames/hello(_:)``): `{"hello":{"client":…,"name":…,"protocol":N,"role":…}}`,
/// with `,"snapshot":false` (or `true`) last, whitespace allowed between tokens. Every
/// connection starts with one, and the general reader (``WireJSON`` decoding a
/// `ClientMessage`) costs the core about 17,000 instructions for it, a tenth of a one-shot
/// `send`'s whole connection.
///
/// It only says yes when the members are exactly those, in that order, each once, the strings
/// printable ASCII without escapes, the version a plain whole number, the role one there is,
/// and the hello one the core takes (``Hello/problem``); the general reader then reads the
/// same hello. Anything else is nil, and the caller reads the frame the general way, which
/// also says what is wrong.
package enum HelloFrame {
    private static var helloKey: StaticString { #""hello""# }
    private static var clientKey: StaticString { #""client""# }
    private static var nameKey: StaticString { #""name""# }
    private static var protocolKey: StaticString { #""protocol""# }
    private static var roleKey: StaticString { #""role""# }
    private static var snapshotKey: StaticString { #""snapshot""# }
    private static var trueText: StaticString { "true" }
    private static var falseText: StaticString { "false" }

    /// The hello in `payload`, if it is written in the plain form.
    /// - Parameter payload: a frame's payload.
    package static func read(_ payload: [UInt8]) -> Hello? {
        payload.withUnsafeBufferPointer { buffer in
            var scanner = FrameScanner(bytes: buffer)
            return read(&scanner)
        }
    }

    private static func read(_ scanner: inout FrameScanner) -> Hello? {
        guard scanner.take(UInt8(ascii: "{")), scanner.takeKey(helloKey), scanner.take(UInt8(ascii: "{")),
              scanner.takeKey(clientKey), let client = plainString(&scanner), scanner.take(UInt8(ascii: ",")),
              scanner.takeKey(nameKey), let name = plainString(&scanner), scanner.take(UInt8(ascii: ",")),
              scanner.takeKey(protocolKey)
        else { return nil }
        scanner.skipWhitespace()
        guard let version = scanner.wholeNumber(allowingSign: true), let protocolVersion = Int(exactly: version),
              scanner.take(UInt8(ascii: ",")), scanner.takeKey(roleKey), let roleName = plainString(&scanner),
              let role = ClientRole(rawValue: roleName)
        else { return nil }
        var snapshot = true
        if scanner.take(UInt8(ascii: ",")) {
            guard scanner.takeKey(snapshotKey) else { return nil }
            if scanner.takeExactly(falseText) {
                snapshot = false
            } else if !scanner.takeExactly(trueText) {
                return nil
            }
        }
        guard scanner.take(UInt8(ascii: "}")), scanner.take(UInt8(ascii: "}")) else { return nil }
        scanner.skipWhitespace()
        guard scanner.position == scanner.bytes.count else { return nil }
        let hello = Hello(protocolVersion: protocolVersion, role: role, client: client, name: name, snapshot: snapshot)
        return hello.problem == nil ? hello : nil
    }

    private static func plainString(_ scanner: inout FrameScanner) -> String? {
        scanner.skipWhitespace()
        return scanner.plainString()
    }
}
