/// Everything one encode builds, in one array of entries: the JSON of an `Encodable` value
/// while it encodes itself, before it becomes a ``JSONValue`` or text.
///
/// Why not a tree of objects? `Encoder` hands out containers that may still be written to
/// after other containers were created (a nested container, a super encoder), so every object
/// and array must stay open until the end. Keeping them all in one array, each container's
/// members as a list linked through the entries (`first`, `last`, `nextSibling`), makes that
/// possible without allocating anything per object, array or nested value: appending is
/// writing one entry and updating two links. The encoder, its containers and the entries
/// refer to each other by index.
///
/// Objects keep their members in the order they came; keys are sorted only when text is
/// written, and the same key encoded twice keeps its last value (as in Foundation).
final class EncodingArena {
    /// One value: the root (entry 0), a member of an object or an element of an array.
    struct Entry {
        /// The key under which this entry is a member of an object; nil for array elements
        /// and the root.
        var key: String?
        var content: Content
        /// The object or array holding this entry, or -1 for the root.
        var parent: Int32
        /// The next member or element of the same container, or -1 for the last one.
        var nextSibling: Int32 = -1
    }

    enum Content {
        /// Nothing was encoded here (yet); written as an empty object, as Foundation does.
        case empty
        /// A finished value: a scalar, or a ``JSONValue`` that encoded itself whole.
        case value(JSONValue)
        /// A Float, kept as one so that its text is its own shortest text (`9.121445e+14`,
        /// as Foundation writes it), which no double's text would reproduce.
        case float(Float)
        /// An object or an array: its entries, linked from `first` to `last` (-1 when empty).
        case object(first: Int32, last: Int32, count: Int32)
        case array(first: Int32, last: Int32, count: Int32)
    }

    /// The entry of the value being encoded.
    static let root: Int32 = 0

    /// Unchecked: one encode fills it, on one thread, and no access to it outlasts the
    /// operation below that makes it (none calls out to the value being encoded).
    @exclusivity(unchecked) private(set) var entries = [Entry(key: nil, content: .empty, parent: -1)]

    // Each operation below touches `entries` through one `inout` access: a stored property of
    // a class is checked for overlapping access at run time, once per access (the check is
    // off for this one, but the pattern keeps each operation one access).

    /// Makes the entry at `slot` an object, unless it already is one (asking for the same
    /// container twice, as a subclass and its superclass do, gives the same object).
    func openObject(at slot: Int32) {
        Self.openObject(at: Int(slot), in: &entries)
    }

    private static func openObject(at slot: Int, in entries: inout [Entry]) {
        if case .object = entries[slot].content { return }
        entries[slot].content = .object(first: -1, last: -1, count: 0)
    }

    /// Makes the entry at `slot` an array, unless it already is one.
    func openArray(at slot: Int32) {
        Self.openArray(at: Int(slot), in: &entries)
    }

    private static func openArray(at slot: Int, in entries: inout [Entry]) {
        if case .array = entries[slot].content { return }
        entries[slot].content = .array(first: -1, last: -1, count: 0)
    }

    /// Replaces what is at `slot` (a single-value container encoding its value).
    func set(_ content: Content, at slot: Int32) {
        entries[Int(slot)].content = content
    }

    /// Adds a member (`key` given) or an element (`key` nil) at the end of the object or array
    /// at `container`, and returns its slot.
    @discardableResult
    func append(_ content: Content, key: String?, to container: Int32) -> Int32 {
        Self.append(content, key: key, to: container, in: &entries)
    }

    private static func append(_ content: Content, key: String?, to container: Int32, in entries: inout [Entry]) -> Int32 {
        let slot = Int32(entries.count)
        entries.append(Entry(key: key, content: content, parent: container))
        switch entries[Int(container)].content {
        case let .object(first, last, count):
            if last >= 0 { entries[Int(last)].nextSibling = slot }
            entries[Int(container)].content = .object(first: first >= 0 ? first : slot, last: slot, count: count + 1)
        case let .array(first, last, count):
            if last >= 0 { entries[Int(last)].nextSibling = slot }
            entries[Int(container)].content = .array(first: first >= 0 ? first : slot, last: slot, count: count + 1)
        case .empty, .value, .float:
            // The container's slot was overwritten through a single-value container (a misuse
            // of Encoder that Foundation stops the program for): the container starts over.
            entries[Int(container)].content = key == nil
                ? .array(first: slot, last: slot, count: 1)
                : .object(first: slot, last: slot, count: 1)
        }
        return slot
    }

    /// How many elements the array at `slot` has.
    func count(of slot: Int32) -> Int {
        if case let .array(_, _, count) = entries[Int(slot)].content { return Int(count) }
        return 0
    }

    /// The coding path of the entry at `slot`, worked out from the links (only errors and the
    /// rare `encode(to:)` that looks at its path ask for it).
    func codingPath(of slot: Int32) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = slot
        while entries[Int(current)].parent >= 0 {
            let entry = entries[Int(current)]
            if let key = entry.key {
                path.append(AnyCodingKey(key))
            } else {
                var position = 0
                var sibling = Self.firstChild(of: entries[Int(entry.parent)].content)
                while sibling != current, sibling >= 0 {
                    position += 1
                    sibling = entries[Int(sibling)].nextSibling
                }
                path.append(AnyCodingKey(intValue: position)!)
            }
            current = entry.parent
        }
        return path.reversed()
    }

    /// The JSON value of the entry at `slot`.
    func jsonValue(of slot: Int32) -> JSONValue {
        Self.jsonValue(of: slot, in: entries)
    }

    static func jsonValue(of slot: Int32, in entries: [Entry]) -> JSONValue {
        switch entries[Int(slot)].content {
        case .empty:
            return .object([:])
        case let .value(value):
            return value
        case let .float(float):
            return ScalarEncoding.jsonValue(of: float)
        case let .object(first, _, count):
            var members = [String: JSONValue](minimumCapacity: Int(count))
            var member = first
            while member >= 0 {
                // The same key encoded twice keeps its last value.
                members[entries[Int(member)].key ?? ""] = jsonValue(of: member, in: entries)
                member = entries[Int(member)].nextSibling
            }
            return .object(members)
        case let .array(first, _, count):
            var elements: [JSONValue] = []
            elements.reserveCapacity(Int(count))
            var element = first
            while element >= 0 {
                elements.append(jsonValue(of: element, in: entries))
                element = entries[Int(element)].nextSibling
            }
            return .array(elements)
        }
    }

    static func firstChild(of content: Content) -> Int32 {
        switch content {
        case let .object(first, _, _), let .array(first, _, _): return first
        case .empty, .value, .float: return -1
        }
    }
}

/// Writes the entries of an ``EncodingArena`` as JSON text: the same text as writing the
/// arena's ``JSONValue``, without building its dictionaries.
///
/// Objects are written with their keys sorted by UTF-8 bytes, and a key encoded more than once
/// only with its last value. Objects inside arrays come in runs of one type whose keys come
/// the same way each time; for those, the order is worked out once and kept with the keys
/// already escaped (an ``ObjectLayout``). Other objects are sorted where they are.
struct EncodingArenaWriter {
    let entries: [EncodingArena.Entry]
    var output = JSONByteWriter()
    /// The members of the objects being written, innermost last; one array for all of them,
    /// so that collecting and sorting members allocates nothing.
    private var members: [Int32] = []
    /// The layouts of the kinds of objects most recently met inside arrays, most recent last.
    private var recentLayouts: [ObjectLayout] = []
    private static let layoutsKept = 8

    /// How to write an object whose members came with these keys, in this order.
    private struct ObjectLayout {
        /// The keys as the members came.
        var keys: [String]
        /// The members to write, as positions among `keys`: sorted by key bytes, a key that
        /// came twice only at its last position.
        var order: [Int]
        /// `"key":` for each position of `order`, escaped once here instead of every time.
        var keyTexts: [[UInt8]]
        /// Whether a key is not ASCII; such objects are written from their dictionary.
        var hasNonASCIIKey: Bool
    }

    init(entries: [EncodingArena.Entry]) {
        self.entries = entries
        // Most entries take a dozen bytes or more; this saves most of the regrowing.
        output.bytes.reserveCapacity(entries.count * 12)
    }

    /// Writes the entry at `slot`; `isInArray` says whether an array encloses it, at any depth.
    mutating func write(_ slot: Int32, isInArray: Bool = false) throws(NonFiniteNumberError) {
        switch entries[Int(slot)].content {
        case .empty:
            output.bytes.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
        case let .value(value):
            try output.write(value)
        case let .float(float):
            output.writeFloat(float)
        case let .array(first, _, _):
            output.bytes.append(UInt8(ascii: "["))
            var element = first
            var position = 0
            while element >= 0 {
                if position > 0 { output.bytes.append(UInt8(ascii: ",")) }
                do {
                    try write(element, isInArray: true)
                } catch {
                    throw error.inside(AnyCodingKey(intValue: position)!)
                }
                element = entries[Int(element)].nextSibling
                position += 1
            }
            output.bytes.append(UInt8(ascii: "]"))
        case let .object(first, _, _):
            let start = members.count
            var member = first
            while member >= 0 {
                members.append(member)
                member = entries[Int(member)].nextSibling
            }
            defer { members.removeSubrange(start...) }
            let written = isInArray ? try writeWithLayout(membersFrom: start, isInArray: isInArray)
                                    : try writeSortingInPlace(membersFrom: start, isInArray: isInArray)
            if !written {
                // Two different strings can be the same dictionary key (Unicode canonical
                // equivalence: "é" precomposed or not), and only then does writing members one
                // by one differ from writing the dictionary. That takes a non-ASCII key: for
                // such (rare) objects, write the dictionary.
                try output.write(EncodingArena.jsonValue(of: slot, in: entries))
            }
        }
    }

    /// Writes the object whose members are at `members[start...]` after sorting them there.
    /// Returns false, having written nothing, if a key is not ASCII.
    private mutating func writeSortingInPlace(membersFrom start: Int, isInArray: Bool) throws(NonFiniteNumberError) -> Bool {
        sortMembers(from: start)
        let textStart = output.bytes.count
        output.bytes.append(UInt8(ascii: "{"))
        var isFirst = true
        for position in start ..< members.count {
            let member = members[position]
            let key = entries[Int(member)].key ?? ""
            // Equal keys are sorted by slot: only the last one is written.
            if position + 1 < members.count, JSONByteWriter.compareUTF8(entries[Int(members[position + 1])].key ?? "", key) == 0 {
                continue
            }
            if !isFirst { output.bytes.append(UInt8(ascii: ",")) }
            isFirst = false
            guard output.writeString(key) else {
                output.bytes.removeSubrange(textStart...)
                return false
            }
            output.bytes.append(UInt8(ascii: ":"))
            do {
                try write(member, isInArray: isInArray)
            } catch {
                throw error.inside(AnyCodingKey(key))
            }
        }
        output.bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// Sorts `members[start...]` by key bytes, then by slot.
    private mutating func sortMembers(from start: Int) {
        let entries = entries
        func precedes(_ a: Int32, _ b: Int32) -> Bool {
            let order = JSONByteWriter.compareUTF8(entries[Int(a)].key ?? "", entries[Int(b)].key ?? "")
            return order == 0 ? a < b : order < 0
        }
        if members.count - start > 16 {
            members[start...].sort(by: precedes)
            return
        }
        // Structs have a handful of keys: insertion sort beats the general sort there.
        for unsorted in min(start + 1, members.count) ..< members.count {
            let member = members[unsorted]
            var slot = unsorted
            while slot > start, precedes(member, members[slot - 1]) {
                members[slot] = members[slot - 1]
                slot -= 1
            }
            members[slot] = member
        }
    }

    /// Writes the object whose members are at `members[start...]` with the layout of its kind.
    /// Returns false, having written nothing, if a key is not ASCII.
    private mutating func writeWithLayout(membersFrom start: Int, isInArray: Bool) throws(NonFiniteNumberError) -> Bool {
        let layout = layoutOfObject(withMembersFrom: start)
        guard !layout.hasNonASCIIKey else { return false }
        output.bytes.append(UInt8(ascii: "{"))
        for (index, position) in layout.order.enumerated() {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            output.bytes.append(contentsOf: layout.keyTexts[index])
            do {
                try write(members[start + position], isInArray: isInArray)
            } catch {
                throw error.inside(AnyCodingKey(layout.keys[position]))
            }
        }
        output.bytes.append(UInt8(ascii: "}"))
        return true
    }

    /// The layout for the members at `members[start...]`: a recent one with the same keys, or
    /// a new one. (Keys are compared as Swift strings, that is up to canonical equivalence; a
    /// layout of ASCII keys can only match the very same keys, and a layout with a non-ASCII
    /// key is never used to write.)
    private mutating func layoutOfObject(withMembersFrom start: Int) -> ObjectLayout {
        let count = members.count - start
        search: for layout in recentLayouts.reversed() where layout.keys.count == count {
            for (position, key) in layout.keys.enumerated() where entries[Int(members[start + position])].key != key {
                continue search
            }
            return layout
        }
        let layout = Self.makeLayout(keys: members[start...].map { entries[Int($0)].key ?? "" })
        if recentLayouts.count == Self.layoutsKept { recentLayouts.removeFirst() }
        recentLayouts.append(layout)
        return layout
    }

    private static func makeLayout(keys: [String]) -> ObjectLayout {
        var order = Array(keys.indices)
        order.sort { a, b in
            let order = JSONByteWriter.compareUTF8(keys[a], keys[b])
            return order == 0 ? a < b : order < 0
        }
        // Equal keys are sorted by position: only the last one is written.
        order = order.indices.compactMap { index in
            index + 1 < order.count && JSONByteWriter.compareUTF8(keys[order[index + 1]], keys[order[index]]) == 0 ? nil : order[index]
        }
        var hasNonASCIIKey = false
        let keyTexts = order.map { position in
            var writer = JSONByteWriter()
            hasNonASCIIKey = !writer.writeString(keys[position]) || hasNonASCIIKey
            writer.bytes.append(UInt8(ascii: ":"))
            return writer.bytes
        }
        return ObjectLayout(keys: keys, order: order, keyTexts: keyTexts, hasNonASCIIKey: hasNonASCIIKey)
    }
}
