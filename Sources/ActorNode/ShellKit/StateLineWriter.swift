import Wire

/// Writes `watch --json`'s lines (``StateJSON/bytes(_:revision:)``) from a state's JSON that
/// patches keep changing, keeping text it wrote until a patch touches it: the text of each
/// top-level member (where it is in the last line, which the next line copies it from), and
/// the text of each element of every long array (a list of 100,000 items), so that toggling
/// one item writes that item's text again, not the list's. The line is then put together from
/// the kept pieces. The bytes are exactly ``StateJSON``'s.
struct StateLineWriter {
    /// A top-level member as the line writes it, or the revision.
    private struct Member {
        /// Its key; nil for `"revision"`, which the line sets.
        let key: String?
        /// Its key's text.
        let keyText: [UInt8]
        /// Where its value's text is in ``last``, until a patch touches the member (never for
        /// the revision, nor for a member holding a long array, which is put together from its
        /// elements each time).
        var text: Range<Int>?
    }

    /// The top-level members with `"revision"`, in the order they are written (by UTF-8
    /// bytes), with the text of those no patch has touched.
    private var members: [Member] = []
    /// Where each top-level key is in ``members``, for a patch to find the text it changes.
    private var memberIndex: [String: Int] = [:]
    /// Whether a patch may have added or removed a top-level member since ``members`` was
    /// put in order (or nothing was written yet).
    private var orderIsStale = true
    /// For each long array, by the tokens of its pointer: the text of each element no patch has
    /// touched (nil for one that must be written again).
    private var elementText: [[String]: [[UInt8]?]] = [:]

    /// The last line written: the next copies the text of the members no patch touched from
    /// it, rather than each member keeping its text in an array of its own.
    private var last: [UInt8] = []
    /// The storage of the line before the last, used again for the next (emptied, its
    /// capacity kept): a line of a 5 MB state is not allocated, its pages faulted in and given
    /// back each time. The caller lets go of the line it was given before asking for the next.
    private var spare: [UInt8] = []

    /// Arrays at least this long keep the text of their elements.
    static let keptArrayLength = 64

    /// Forgets what `patch` may have changed.
    /// - Parameter patch: a patch applied to the document.
    mutating func changed(by patch: JSONPatch) {
        for operation in patch {
            // A move takes its element away first, then adds it; a copy only adds.
            if let from = operation.from, operation.op == .move, !forget(at: from, operation: .remove) { return }
            if !forget(at: operation.path, operation: operation.op == .move || operation.op == .copy ? .add : operation.op) { return }
        }
    }

    /// Forgets the text an operation at `pointer` changes; false if that was everything.
    private mutating func forget(at pointer: JSONPointer, operation: JSONPatchOperation.Kind) -> Bool {
        guard let member = pointer.tokens.first else {
            forgetAll()
            return false
        }
        if operation == .test { return true }
        if let index = index(ofMember: member) { members[index].text = nil }
        // A member added or removed at the top level changes the order.
        if pointer.tokens.count == 1, operation != .replace { orderIsStale = true }
        forgetElements(at: pointer.tokens, operation: operation)
        return true
    }

    /// Where the top-level member `key` is in ``members``: looked for among a few by comparing
    /// the keys (two words each for a short key, where hashing it costs some 350 instructions,
    /// once a state printed), in ``memberIndex`` among many.
    private func index(ofMember key: String) -> Int? {
        guard members.count <= 16 else { return memberIndex[key] }
        return members.firstIndex { $0.key == key }
    }

    /// Forgets everything (a new document).
    mutating func forgetAll() {
        members.removeAll(keepingCapacity: true)
        memberIndex.removeAll(keepingCapacity: true)
        orderIsStale = true
        elementText.removeAll()
    }

    /// Puts the members of `document` and the revision in the order they are written, keeping
    /// the text of those still there.
    private mutating func order(_ document: [String: JSONValue]) {
        let keys = Set(document.keys).union(["revision"]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let old = members
        let oldIndex = memberIndex
        members = keys.map { key in
            let kept = oldIndex[key].flatMap { old[$0].text }
            return Member(key: key == "revision" ? nil : key, keyText: JSONFragment.string(key), text: kept)
        }
        memberIndex.removeAll(keepingCapacity: true)
        for (index, member) in members.enumerated() {
            if let key = member.key { memberIndex[key] = index }
        }
        orderIsStale = false
    }

    /// The line for `document` at `revision`.
    /// - Parameters:
    ///   - document: the state's JSON, as patched since the last call.
    ///   - revision: its revision.
    mutating func line(_ document: JSONValue, revision: UInt64) -> [UInt8] {
        guard case let .object(values) = document else { return StateJSON.bytes(document, revision: revision) }
        if orderIsStale { order(values) }
        var line: [UInt8] = []
        swap(&line, &spare)
        line.removeAll(keepingCapacity: true)
        line.append(UInt8(ascii: "{"))
        for index in members.indices {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            line += members[index].keyText
            line.append(UInt8(ascii: ":"))
            guard let key = members[index].key else {
                JSONFragment.append(revision, to: &line)
                continue
            }
            let start = line.count
            if let text = members[index].text {
                line += last[text]
                members[index].text = start ..< line.count
                continue
            }
            guard let found = values.memberIndex(key) else {
                forgetAll()
                return StateJSON.bytes(document, revision: revision)
            }
            let value = values[found].value
            // A member holding a long array is put together again from its elements' text
            // each time, straight into the line: keeping its whole text too would copy it
            // twice. Any other member's text is kept.
            if containsLongArray(value) {
                guard append(value, at: [key], to: &line) else {
                    // Not what was expected (a NaN): the general writer decides.
                    forgetAll()
                    return StateJSON.bytes(document, revision: revision)
                }
            } else {
                guard (try? JSONSerializer.append(value, to: &line)) != nil else {
                    forgetAll()
                    return StateJSON.bytes(document, revision: revision)
                }
                members[index].text = start ..< line.count
            }
        }
        line.append(UInt8(ascii: "}"))
        line.append(UInt8(ascii: "\n"))
        // The caller let go of the last line: its storage is the next one's.
        spare = last
        last = line
        return line
    }

    /// Appends `value`'s text, written at `path`, using and keeping the text of long arrays'
    /// elements; false for a value JSON cannot hold.
    private mutating func append(_ value: JSONValue, at path: [String], to text: inout [UInt8]) -> Bool {
        switch value {
        case let .object(members) where containsLongArray(value):
            text.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                text += JSONFragment.string(key)
                text.append(UInt8(ascii: ":"))
                guard append(members[key]!, at: path + [key], to: &text) else { return false }
            }
            text.append(UInt8(ascii: "}"))
            return true
        case let .array(elements) where elements.count >= Self.keptArrayLength:
            // Taken out while it changes, so that it is changed in place, not copied.
            var kept = elementText.removeValue(forKey: path) ?? []
            if kept.count != elements.count { kept = Array(repeating: nil, count: elements.count) }
            text.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                if let elementText = kept[index] {
                    text += elementText
                } else {
                    guard let written = try? JSONSerializer.serialize(element) else { return false }
                    kept[index] = written
                    text += written
                }
            }
            text.append(UInt8(ascii: "]"))
            elementText[path] = kept
            return true
        default:
            return (try? JSONSerializer.append(value, to: &text)) != nil
        }
    }

    /// Whether an object holds a long array among its members (or theirs): then it is written
    /// member by member, else in one go.
    private func containsLongArray(_ value: JSONValue) -> Bool {
        switch value {
        case let .object(members): members.values.contains { containsLongArray($0) }
        case let .array(elements): elements.count >= Self.keptArrayLength
        default: false
        }
    }

    /// Forgets the text kept for what an operation at `tokens` changes: the element of each
    /// long array on the way, and, for an element added or removed, shifts the rest.
    private mutating func forgetElements(at tokens: [String], operation: JSONPatchOperation.Kind) {
        guard !elementText.isEmpty else { return }
        // The pointer names a kept array itself (replaced or removed whole), or something in it.
        for key in elementText.keys where key.count >= tokens.count && Array(key.prefix(tokens.count)) == tokens {
            elementText[key] = nil
        }
        for depth in 1 ..< max(tokens.count, 1) {
            let arrayPath = Array(tokens.prefix(depth))
            // Taken out while it changes, so that it is changed in place, not copied.
            guard var kept = elementText.removeValue(forKey: arrayPath) else { continue }
            let token = tokens[depth]
            let last = depth == tokens.count - 1
            if last, operation == .add || operation == .remove {
                // Elements shift: arrays kept inside this one's elements are named by index.
                for key in elementText.keys where key.count > depth + 1 && Array(key.prefix(depth)) == arrayPath {
                    elementText[key] = nil
                }
                if operation == .add, token == "-" {
                    kept.append(nil)
                } else if let index = Int(token), index >= 0, index <= kept.count {
                    if operation == .add {
                        kept.insert(nil, at: index)
                    } else if index < kept.count {
                        kept.remove(at: index)
                    } else {
                        kept = []
                    }
                } else {
                    kept = []
                }
            } else if let index = Int(token), index >= 0, index < kept.count {
                kept[index] = nil
            } else {
                kept = []
            }
            elementText[arrayPath] = kept
        }
    }
}
