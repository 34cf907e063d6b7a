import Wire

/// `hello-frame`: the core's hand reading of a hello (``HelloFrame/read(_:)``) against the
/// general reader it stands in for (``WireJSON`` decoding a `ClientMessage`). The hand reader
/// may say nil where the general one reads a hello; when it says yes, the general reader must
/// read a hello, and the same one.
///
/// The input is the frame's payload.
public enum HelloFrameTarget: FuzzTarget {
    public static let name = "hello-frame"
    public static let summary = "HelloFrame.read says yes only to what the general reader reads as the same hello"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        guard let hello = HelloFrame.read(input) else { return }
        let general: ClientMessage<JSONValue>
        do {
            general = try WireJSON.decode(ClientMessage<JSONValue>.self, from: input)
        } catch {
            throw FuzzFinding("the hand reader read \(hello) where the general reader refuses (\(describeDecodingFailure(error))): \(FindingText.text(input))")
        }
        guard case let .hello(read) = general else {
            throw FuzzFinding("the hand reader read a hello where the general reader reads \(general): \(FindingText.text(input))")
        }
        guard read == hello else {
            throw FuzzFinding("the readers differ on \(FindingText.text(input)):\n  hand:    \(hello)\n  general: \(read)")
        }
    }
}
