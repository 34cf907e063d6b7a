import Wire

/// `json-patch`: pointers, patches and diffs.
///
/// From the input it builds a document, a patch of a few operations aimed mostly at what the
/// document holds, and a pointer's text. It checks that
/// - a pointer's text, parsed, is written back as text that parses to the same pointer;
/// - applying the patch never traps; a patch that fails leaves the document as it was, and
///   applying it in place fails too (where it succeeds, both give the same document);
/// - the patch survives its JSON: written and read back, it is the same patch (its values the
///   same JSON);
/// - for the document before and after the patch, `diff(a, b)` applied to `a` gives `b`, and
///   the other way round;
/// - a ``ChunkedArray`` long enough to have several chunks, edited as the input says, equals
///   an `Array` edited alike, and its diff from before the edits, applied to the JSON of the
///   list before, gives the JSON of the list after.
public enum JSONPatchTarget: FuzzTarget {
    public static let name = "json-patch"
    public static let summary = "JSONPointer text, JSONPatch application, JSON and ChunkedArray diffs: no trap, apply(diff(a, b), a) == b"

    public static func check(_ input: [UInt8]) throws(FuzzFinding) {
        var builder = FuzzValueBuilder(input: FuzzInput(input))
        try checkPointerText(String(decoding: builder.input.bytes(builder.input.choice(below: 16)), as: UTF8.self))
        let document = builder.value(depth: 4)
        var patch: JSONPatch = []
        for _ in 0 ..< builder.input.choice(below: 6) {
            patch.append(builder.operation(on: document))
        }
        try checkPatchJSON(patch)
        let patched = try apply(patch, to: document)
        let other = patched ?? builder.value(depth: 4)
        try checkDiff(from: document, to: other)
        try checkDiff(from: other, to: document)
        try checkChunkedArray(&builder.input)
    }

    static func checkPointerText(_ text: String) throws(FuzzFinding) {
        guard let pointer = JSONPointer(text) else { return }
        guard JSONPointer(pointer.description) == pointer else {
            throw FuzzFinding("the pointer read from '\(text)' is written '\(pointer.description)', which reads as \(String(describing: JSONPointer(pointer.description)?.tokens)), not \(pointer.tokens)")
        }
    }

    static func checkPatchJSON(_ patch: JSONPatch) throws(FuzzFinding) {
        do {
            // Compared as text: a double with a whole value (1.0) is written `1` and reads back
            // as an integer, the same JSON.
            let text = try WireJSON.encode(patch)
            let read = try WireJSON.decode(JSONPatch.self, from: text)
            let again = try WireJSON.encode(read)
            guard again == text, read.map(\.op) == patch.map(\.op), read.map(\.path) == patch.map(\.path), read.map(\.from) == patch.map(\.from) else {
                throw FuzzFinding("the patch \(patch) is written \(FindingText.text(text)), reads back as \(read), written \(FindingText.text(again))")
            }
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("the patch \(patch) does not survive its JSON: \(error)")
        }
    }

    /// The document after the patch, or nil if the patch does not apply.
    static func apply(_ patch: JSONPatch, to document: JSONValue) throws(FuzzFinding) -> JSONValue? {
        var atomic = document
        var inPlace = document
        var atomicError: JSONPatchError?
        var inPlaceError: JSONPatchError?
        do { try atomic.apply(patch) } catch { atomicError = error }
        do { try inPlace.applyInPlace(patch) } catch { inPlaceError = error }
        guard atomicError == inPlaceError else {
            throw FuzzFinding("applied whole, the patch \(patch) says \(String(describing: atomicError)); in place, \(String(describing: inPlaceError))")
        }
        if atomicError != nil {
            guard atomic == document else {
                throw FuzzFinding("the failed patch \(patch) changed \(FindingText.json(document)) into \(FindingText.json(atomic))")
            }
            return nil
        }
        guard atomic == inPlace else {
            throw FuzzFinding("the patch \(patch) gives \(FindingText.json(atomic)) applied whole and \(FindingText.json(inPlace)) in place")
        }
        return atomic
    }

    static func checkDiff(from old: JSONValue, to new: JSONValue) throws(FuzzFinding) {
        let diff = JSONValue.diff(from: old, to: new)
        var patched = old
        do {
            try patched.apply(diff)
        } catch {
            throw FuzzFinding("the diff from \(FindingText.json(old)) to \(FindingText.json(new)), \(diff), does not apply: \(error)")
        }
        guard patched == new else {
            throw FuzzFinding("the diff from \(FindingText.json(old)) to \(FindingText.json(new)), \(diff), gives \(FindingText.json(patched))")
        }
    }

    /// An element with an identity, as an app's list holds.
    struct Item: Codable, Equatable, Identifiable, Diffable {
        var id: Int
        var label: Int
    }

    static func checkChunkedArray(_ input: inout FuzzInput) throws(FuzzFinding) {
        // Up to 1,023 elements (several chunks of 256 once built) one time in four, else short.
        let count = input.choice(below: 4) == 0 ? input.uint16() % 1024 : input.choice(below: 64)
        let before = (0 ..< count).map { Item(id: $0, label: 0) }
        var model = before
        let old = ChunkedArray(before)
        var list = old
        var nextID = count
        for _ in 0 ..< input.choice(below: 8) {
            let start = model.isEmpty ? 0 : input.uint16() % (model.count + 1)
            let length = min(model.count - start, input.choice(below: 4) == 0 ? input.uint16() % 600 : input.choice(below: 3))
            var inserted: [Item] = []
            switch input.choice(below: 3) {
            case 0:
                // Edited in place: the same ids, other labels.
                inserted = model[start ..< start + length].map { Item(id: $0.id, label: $0.label + 1) }
            case 1:
                for _ in 0 ..< (input.choice(below: 4) == 0 ? input.uint16() % 700 : input.choice(below: 3)) {
                    inserted.append(Item(id: nextID, label: 0))
                    nextID += 1
                }
            default:
                break
            }
            model.replaceSubrange(start ..< start + length, with: inserted)
            list.replaceSubrange(start ..< start + length, with: inserted)
        }
        guard list.elementsEqual(model), list.count == model.count else {
            throw FuzzFinding("the chunked list and the array edited alike differ: \(list.count) and \(model.count) elements")
        }
        do {
            let patch = try list.patch(from: old)
            var json = try JSONValue(encoding: before)
            try json.apply(patch)
            guard json == (try JSONValue(encoding: model)) else {
                throw FuzzFinding("the chunked list's patch from \(before.count) to \(model.count) elements, \(patch.count) operations, gives another list")
            }
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("the chunked list's patch from \(before.count) to \(model.count) elements fails: \(error)")
        }
    }
}
