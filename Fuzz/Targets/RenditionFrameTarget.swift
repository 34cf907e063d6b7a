import Wire

/// `rendition-frame`: the watcher's hand reader of renditions (``RenditionFrame``'s `read`)
/// against the general reader (``WireJSON`` decoding a `ServerMessage`). The hand reader may
/// say nil where the general one reads a rendition; when it says yes, the general reader must
/// read the very same rendition: revision, snapshot or patch, operation by operation.
///
/// The input is the frame's payload.
public enum RenditionFrameTarget: FuzzTarget {
    public static let name = "rendition-frame"
    public static let summary = "RenditionFrame.read says yes only to what the general reader reads as the same rendition"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        guard let quick = RenditionFrame.read(input) else { return }
        let general: ServerMessage<JSONValue>
        do {
            general = try WireJSON.decode(ServerMessage<JSONValue>.self, from: input)
        } catch {
            throw FuzzFinding("the hand reader read a rendition at revision \(quick.revision) where the general reader refuses (\(describeDecodingFailure(error))): \(FindingText.text(input))")
        }
        guard case let .rendition(rendition) = general else {
            throw FuzzFinding("the hand reader read a rendition where the general reader reads a \(general.name): \(FindingText.text(input))")
        }
        guard rendition == quick else {
            throw FuzzFinding("""
                the readers differ on \(FindingText.text(input)):
                  hand:    \(quick)
                  general: \(rendition)
                """)
        }
    }
}
