import Wire

/// `rendition-frame`: the watcher's hand reader of renditions (``RenditionFrame``'s `read`)
/// against the general reader (``WireJSON`` decoding a `ServerMessage`). The hand reader may
/// say nil where the general one reads a rendition; when it says yes, the general reader must
/// read the very same rendition: revision, snapshot or patch, operation by operation. A
/// snapshot it read is written again by the core's hand writer
/// (``Rendition/snapshotFrame(revision:snapshot:)``), which must write what ``WireJSON`` writes
/// and what the hand reader reads back the same.
///
/// The input is the frame's payload.
public enum RenditionFrameTarget: FuzzTarget {
    public static let name = "rendition-frame"
    public static let summary = "RenditionFrame.read says yes only to what the general reader reads as the same rendition; the snapshot writer matches WireJSON"

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
        if case let .snapshot(state) = quick.content {
            try checkSnapshotWriter(quick, state: state)
        }
    }

    static func checkSnapshotWriter(_ rendition: RenditionFrame, state: JSONValue) throws(FuzzFinding) {
        guard let stateText = try? WireJSON.encode(state),
              let general = try? Frame.encode(WireJSON.encode(ServerMessage<JSONValue>.rendition(rendition)), maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        else { return }
        let written = RenditionFrame.snapshotFrame(revision: rendition.revision, snapshot: stateText)
        guard written == general else {
            throw FuzzFinding("the snapshot written by hand is \(FindingText.text(written)), WireJSON writes \(FindingText.text(general))")
        }
        // Compared as JSON text: a whole double (9000000000.0) is written without its fraction
        // and reads back as an integer, the same JSON.
        let readBack = RenditionFrame.read(Array(written.dropFirst(Frame.headerLength)))
        guard let readBack, (try? WireJSON.encode(ServerMessage<JSONValue>.rendition(readBack))) == (try? WireJSON.encode(ServerMessage<JSONValue>.rendition(rendition))) else {
            throw FuzzFinding("the snapshot written by hand does not read back as \(rendition): \(FindingText.text(written))")
        }
    }
}
