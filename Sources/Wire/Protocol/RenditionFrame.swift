/// A `rendition` frame read by hand, without the `Codable` machinery: the envelope and each
/// operation of a patch by the structure of the text (``FrameScanner``), only the values
/// parsed. A watcher reads one of these for every change of the state, and the general reader
/// (``WireJSON`` decoding a ``ServerMessage``) costs several times as much (type metadata,
/// containers, a dictionary and a decoder per level).
///
/// It says yes only to `{"rendition":{"patch":[…],"revision":R}}` or
/// `{"rendition":{"revision":R,"snapshot":STATE}}` (members in any order, whitespace allowed),
/// each operation of the patch an object with a known `op`, a `path`, and `from` and `value`
/// where given, each member once, the pointers valid: a rendition the general reader reads the
/// same way. Anything else is nil, and the caller reads the frame the general way, which also
/// says what is wrong.
package typealias RenditionFrame = Rendition<JSONValue>

extension Rendition where State == JSONValue {
    /// The rendition in `payload`, a frame from the core, or nil if it is not one in the form
    /// above.
    /// - Parameter payload: the frame's payload.
    package static func read(_ payload: [UInt8]) -> RenditionFrame? {
        read(payload[...])
    }

    /// ``read(_:)-([UInt8])`` of a payload that is a slice of what was received (no copy).
    /// - Parameter payload: the frame's payload.
    package static func read(_ payload: ArraySlice<UInt8>) -> RenditionFrame? {
        payload.withUnsafeBufferPointer { buffer in
            var scanner = FrameScanner(bytes: buffer)
            // Anything else is told at its first bytes.
            guard scanner.isNext(#"{"rendition":"#) else { return nil }
            return scanner.rendition()
        }
    }

    /// `{"rendition":{"revision":R,"snapshot":STATE}}`, framed: a snapshot rendition written by
    /// hand around the state's JSON text, byte for byte what ``WireJSON`` writes for
    /// ``ServerMessage/rendition(_:)`` holding that state (keys sorted). The core sends one to
    /// a shell that fell behind, with the text it encoded once for that revision; ``read(_:)``
    /// reads it back.
    /// - Parameters:
    ///   - revision: the state's revision.
    ///   - snapshot: the state's JSON text, as ``WireJSON`` writes it.
    package static func snapshotFrame(revision: UInt64, snapshot: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = []
        frame.reserveCapacity(snapshot.count + 52)
        let start = Frame.beginFrame(in: &frame)
        frame += #"{"rendition":{"revision":"#.utf8
        JSONFragment.append(revision, to: &frame)
        frame += #","snapshot":"#.utf8
        frame += snapshot
        frame += "}}".utf8
        Frame.endFrame(in: &frame, startingAt: start)
        return frame
    }
}

extension Rendition where State == JSONValue {
    /// `{"rendition":{"patch":[...],"revision":R}}`, framed: a patch rendition written by hand,
    /// byte for byte what ``WireJSON`` writes for ``ServerMessage/rendition(_:)`` holding it
    /// (each operation's keys in order: `from`, `op`, `path`, `value`). The core sends one for
    /// every action while shells watch; through the general encoder it cost 36,000
    /// instructions for one small operation (callgrind). Nil if a value holds a number JSON
    /// cannot write, or the revision is above 2^63-1, the largest whole number the wire carries
    /// (the general encoder then says so).
    /// - Parameters:
    ///   - revision: the revision the patch leads to.
    ///   - patch: the operations.
    package static func patchFrame(revision: UInt64, patch: JSONPatch) -> [UInt8]? {
        guard revision <= UInt64(Int64.max) else { return nil }
        var writer = JSONByteWriter()
        let start = Frame.beginFrame(in: &writer.bytes)
        writer.bytes += #"{"rendition":{"patch":["#.utf8
        for (index, operation) in patch.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.bytes.append(UInt8(ascii: "{"))
            if let from = operation.from {
                writer.bytes += #""from":"#.utf8
                writer.writeString(from.description)
                writer.bytes.append(UInt8(ascii: ","))
            }
            writer.bytes += #""op":""#.utf8
            writer.bytes += operation.op.rawValue.utf8
            writer.bytes += #"","path":"#.utf8
            writer.writeString(operation.path.description)
            if let value = operation.value {
                writer.bytes += #","value":"#.utf8
                do {
                    try writer.write(value)
                } catch {
                    return nil
                }
            }
            writer.bytes.append(UInt8(ascii: "}"))
        }
        writer.bytes += #"],"revision":"#.utf8
        JSONByteWriter.appendDecimal(revision, to: &writer.bytes)
        writer.bytes += "}}".utf8
        guard writer.bytes.count - start - Frame.headerLength <= Frame.absoluteMaximumPayloadLength else { return nil }
        Frame.endFrame(in: &writer.bytes, startingAt: start)
        return writer.bytes
    }
}

/// Reads a rendition by the structure of its text.
extension FrameScanner {
    static var renditionKey: StaticString { #""rendition""# }

    mutating func rendition() -> RenditionFrame? {
        guard take(UInt8(ascii: "{")), takeExactly(Self.renditionKey), take(UInt8(ascii: ":")), take(UInt8(ascii: "{")) else { return nil }
        var revision: Int64?
        var patch: JSONPatch?
        var snapshot: JSONValue?
        var seen: UInt8 = 0
        repeat {
            guard let member = renditionMember(seen: &seen) else { return nil }
            switch member {
            case 0:
                guard let operations = operations() else { return nil }
                patch = operations
            case 1:
                guard let number = wholeNumber(allowingSign: false) else { return nil }
                revision = number
            default:
                guard let value = value() else { return nil }
                snapshot = value
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        guard position == bytes.count, let revision else { return nil }
        switch (patch, snapshot) {
        case let (patch?, nil): return RenditionFrame(revision: UInt64(revision), content: .patch(patch))
        case let (nil, snapshot?): return RenditionFrame(revision: UInt64(revision), content: .snapshot(snapshot))
        default: return nil
        }
    }

    /// The key of a rendition's member (0 `patch`, 1 `revision`, 2 `snapshot`), not seen
    /// before, and its colon. Each key is compared with the text as it is, quotes included,
    /// so that any other spelling (an escape, another key) is nil and left to the general
    /// reader.
    private mutating func renditionMember(seen: inout UInt8) -> Int? {
        let member: Int
        if takeExactly(#""patch""#) {
            member = 0
        } else if takeExactly(#""revision""#) {
            member = 1
        } else if takeExactly(#""snapshot""#) {
            member = 2
        } else {
            return nil
        }
        return colon(after: member, seen: &seen)
    }

    /// The key of an operation's member (0 `from`, 1 `op`, 2 `path`, 3 `value`), not seen
    /// before, and its colon.
    private mutating func operationMember(seen: inout UInt8) -> Int? {
        let member: Int
        if takeExactly(#""op""#) {
            member = 1
        } else if takeExactly(#""path""#) {
            member = 2
        } else if takeExactly(#""value""#) {
            member = 3
        } else if takeExactly(#""from""#) {
            member = 0
        } else {
            return nil
        }
        return colon(after: member, seen: &seen)
    }

    /// Marks `member` seen (nil if it was) and takes the colon after its key.
    private mutating func colon(after member: Int, seen: inout UInt8) -> Int? {
        guard seen & (1 << member) == 0, take(UInt8(ascii: ":")) else { return nil }
        seen |= 1 << member
        skipWhitespace()
        return member
    }

    /// An operation's name, as a string with its quotes (the most common first).
    private mutating func operationKind() -> JSONPatchOperation.Kind? {
        if takeExactly(#""replace""#) { return .replace }
        if takeExactly(#""add""#) { return .add }
        if takeExactly(#""remove""#) { return .remove }
        if takeExactly(#""test""#) { return .test }
        if takeExactly(#""move""#) { return .move }
        if takeExactly(#""copy""#) { return .copy }
        return nil
    }

    private mutating func operations() -> JSONPatch? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var patch: JSONPatch = []
        if take(UInt8(ascii: "]")) { return patch }
        repeat {
            guard let operation = operation() else { return nil }
            patch.append(operation)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? patch : nil
    }

    private mutating func operation() -> JSONPatchOperation? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var kind: JSONPatchOperation.Kind?
        var path: JSONPointer?
        var from: JSONPointer?
        var operand: JSONValue?
        var seen: UInt8 = 0
        repeat {
            guard let member = operationMember(seen: &seen) else { return nil }
            switch member {
            case 0:
                guard let pointer = pointer() else { return nil }
                from = pointer
            case 1:
                guard let known = operationKind() else { return nil }
                kind = known
            case 2:
                guard let pointer = pointer() else { return nil }
                path = pointer
            default:
                guard let value = value() else { return nil }
                operand = value
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), let kind, let path else { return nil }
        return JSONPatchOperation(op: kind, path: path, from: from, value: operand)
    }

    /// A pointer's text: a plain string as it is, any other string through the parser.
    private mutating func pointer() -> JSONPointer? {
        if let text = skipPlainString() { return JSONPointer(utf8: UnsafeBufferPointer(rebasing: bytes[text])) }
        guard case let .string(text)? = value() else { return nil }
        return JSONPointer(text)
    }

    /// One value, parsed; nil if it is not valid JSON. Its depth is limited as if it were at
    /// the bottom of the frame, so that nothing deeper than the general reader takes is taken.
    private mutating func value() -> JSONValue? {
        // A whole number (a counter's value, an id), the most common operand, is read as it
        // stands; what follows it is checked by the caller, as after any value.
        if let number = wholeNumber(allowingSign: true) { return .integer(number) }
        guard let range = skipValue() else { return nil }
        return try? JSONParser(maximumDepth: JSONParser.defaultMaximumDepth - 4).parse(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[range])))
    }
}
