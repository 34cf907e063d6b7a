import Wire

/// `plain-action`: the core's quick reading of an action frame (``PlainActionFrame/scan(_:)``)
/// against the general reader the core falls back to (``WireJSON`` decoding a
/// `ClientMessage`). The quick one may say nil where the general one reads an action; but
/// when it says yes and the action it found parses (the core then applies it, and never asks
/// the general reader), the general reader must read an action with the same seq and an
/// equal action.
///
/// The input is the frame's payload.
public enum PlainActionTarget: FuzzTarget {
    public static let name = "plain-action"
    public static let summary = "PlainActionFrame.scan says yes only to what the general reader reads as the same action and seq"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        guard let plain = PlainActionFrame.scan(input) else { return }
        guard plain.action.lowerBound >= 0, plain.action.upperBound <= input.count else {
            throw FuzzFinding("the scanner's action range \(plain.action) is outside the \(input.count)-byte frame \(FindingText.text(input))")
        }
        // As the core does: a scanned action that does not parse sends the frame the general way.
        guard let action = try? JSONParser().parse(input[plain.action]) else { return }
        let general: ClientMessage<JSONValue>
        do {
            general = try WireJSON.decode(ClientMessage<JSONValue>.self, from: input)
        } catch {
            throw FuzzFinding("the scanner read seq \(plain.seq) and action \(FindingText.json(action)) where the general reader refuses (\(describeDecodingFailure(error))): \(FindingText.text(input))")
        }
        guard case let .action(request) = general else {
            throw FuzzFinding("the scanner read an action where the general reader reads \(general): \(FindingText.text(input))")
        }
        guard request.seq == plain.seq, request.action == action else {
            throw FuzzFinding("""
                the readers differ on \(FindingText.text(input)):
                  scanner: seq \(plain.seq), action \(FindingText.json(action))
                  general: seq \(request.seq), action \(FindingText.json(request.action))
                """)
        }
    }
}
