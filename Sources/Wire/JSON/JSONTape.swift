/// A JSON text checked and indexed, without a value made of any of its parts: one entry per
/// value and per key, in text order, each saying what it is and where its bytes are.
///
/// ``JSONParser`` reads the text (the same grammar, limits and refusals, duplicate keys
/// included, with the same errors); the tape is what ``JSONTapeReader`` decodes a `Decodable`
/// from. Reading a typed value this way makes no dictionary per object and no string per key,
/// which is most of what making a ``JSONValue`` first costs: the core reads every client's
/// action like this.
///
/// The layout, as simdjson's tape: a container's entry is followed by its contents (an object's
/// by key, value, key, value...), and says where the entry after its last one is, so that a
/// reader steps over it in one move. Strings without escapes stay in the text; those with
/// escapes are kept, resolved, in a buffer of the tape's own.
package final class JSONTape {
    /// What an entry is.
    enum Kind: UInt8 {
        case null, bool, integer, double, string, array, object
    }

    /// One value or key.
    struct Entry {
        var kind: Kind
        /// A bool's value; for a string, whether all its bytes are ASCII.
        var flag = false
        /// For a string, whether its bytes are in ``escaped`` (else in the text).
        var isEscaped = false
        /// A string's first byte; a container's end (the index of the entry after its last
        /// one; while it is open, the index of the container that encloses it, or -1); an
        /// integer's value; a double's bit pattern.
        var first = 0
        /// The end of a string's bytes; a container's number of elements or members.
        var second = 0
        /// A key's offset in the text (its opening quote), for the error about a key given twice.
        var offset = 0
    }

    // The stored properties are marked `@exclusivity(unchecked)`: a tape is not Sendable, so
    // one thread uses it at a time, and none of its methods calls out to code that could come
    // back to it while it changes them. The run-time check costs about 100 instructions an
    // access that the compiler cannot prove safe (the core reads a tape at every action).

    /// The entries; the document's value is the first.
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
    /// The text the entries point into (offsets count from its start).
    @exclusivity(unchecked) private var text: ArraySlice<UInt8> = []
    /// The strings that had escapes, resolved, one after another.
    @exclusivity(unchecked) private var escaped: [UInt8] = []

    /// A tape that holds no document yet, to ``read(_:maximumDepth:)`` into.
    package init() {}

    /// Reads `text`, which must be one JSON document.
    /// - Parameters:
    ///   - text: the bytes; the tape keeps them (no copy).
    ///   - maximumDepth: how many arrays and objects may enclose one another.
    /// - Throws: what ``JSONParser`` throws for the same text.
    package convenience init(_ text: ArraySlice<UInt8>, maximumDepth: Int = JSONParser.defaultMaximumDepth) throws(JSONSyntaxError) {
        self.init()
        try read(text, maximumDepth: maximumDepth)
    }

    /// Reads `text` in place of the document the tape held, reusing its storage (a reader of
    /// many documents, one after another, allocates nothing for each once it has grown).
    /// - Parameters:
    ///   - text: the bytes; the tape keeps them (no copy).
    ///   - maximumDepth: how many arrays and objects may enclose one another.
    /// - Throws: what ``JSONParser`` throws for the same text; the tape then holds nothing.
    package func read(_ text: ArraySlice<UInt8>, maximumDepth: Int = JSONParser.defaultMaximumDepth) throws(JSONSyntaxError) {
        // The storage moves into the builder and back, so that it is never shared (and copied).
        var builder = JSONTapeBuilder()
        swap(&builder.entries, &entries)
        swap(&builder.escaped, &escaped)
        if !builder.entries.isEmpty { builder.entries.removeAll(keepingCapacity: true) }
        if !builder.escaped.isEmpty { builder.escaped.removeAll(keepingCapacity: true) }
        self.text = text
        do {
            try text.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
                builder.text = bytes
                try JSONParser(maximumDepth: maximumDepth).scan(bytes, into: &builder)
            }
        } catch {
            builder.entries.removeAll(keepingCapacity: true)
            swap(&builder.entries, &entries)
            swap(&builder.escaped, &escaped)
            throw error
        }
        swap(&builder.entries, &entries)
        swap(&builder.escaped, &escaped)
    }

    /// Lets go of the text the tape points into (its entries too: it holds no document until
    /// the next ``read(_:maximumDepth:)``), keeping its storage.
    package func forgetText() {
        text = []
        // A small document's few entries are taken off one by one: `removeAll(keepingCapacity:)`
        // is a generic replacement of the whole range, some 70 instructions however few there
        // are (the core forgets the tape of every action it reads).
        if entries.count <= 16 {
            while entries.popLast() != nil {}
        } else {
            entries.removeAll(keepingCapacity: true)
        }
    }

    /// Reads any collection of bytes (one that is not an array or a slice of one is copied).
    /// - Parameters:
    ///   - text: the bytes.
    ///   - maximumDepth: how many arrays and objects may enclose one another.
    package convenience init(_ text: some Collection<UInt8>, maximumDepth: Int = JSONParser.defaultMaximumDepth) throws(JSONSyntaxError) {
        if let slice = text as? ArraySlice<UInt8> {
            try self.init(slice, maximumDepth: maximumDepth)
        } else {
            let bytes = text as? [UInt8] ?? Array(text)
            try self.init(bytes[...], maximumDepth: maximumDepth)
        }
    }

    /// The index of the entry after the value at `index` and everything inside it.
    func after(_ index: Int) -> Int {
        let entry = entries[index]
        return entry.kind == .array || entry.kind == .object ? entry.first : index + 1
    }

    /// Calls `body` with the bytes of the string or key at `index`.
    func withBytes<R>(of index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let entry = entries[index]
        if entry.isEscaped {
            return try escaped.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[entry.first ..< entry.second])) }
        }
        return try text.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[entry.first ..< entry.second])) }
    }

    /// The string or key at `index`.
    func string(at index: Int) -> String {
        withBytes(of: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the key at `index` is `name`, as Swift compares strings (canonical equivalence);
    /// by its bytes when both are ASCII.
    /// - Parameters:
    ///   - index: a key's entry.
    ///   - name: the name's UTF-8 bytes.
    ///   - nameIsASCII: whether they are all ASCII.
    ///   - string: the name, for the comparison that is not by bytes.
    func key(at index: Int, is name: UnsafeBufferPointer<UInt8>, nameIsASCII: Bool, string: String) -> Bool {
        let entry = entries[index]
        guard entry.flag, nameIsASCII else { return self.string(at: index) == string }
        guard entry.second - entry.first == name.count else { return false }
        return withBytes(of: index) { JSONTape.same($0, name) }
    }

    /// Whether two texts are the same bytes: a plain loop (the standard library's
    /// `elementsEqual`, through its iterators, costs several times as much on a short key).
    static func same(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard one.count == other.count else { return false }
        for index in 0 ..< one.count where one[index] != other[index] { return false }
        return true
    }

    /// The steps from the container at `from` down to the entry `to` inside it: a key's name
    /// for each object's member, a position for each array's element (none if they are one).
    /// How a ``JSONTapeReader`` works out its path, when asked.
    func steps(from: Int, to target: Int) -> [CodingPathStep] {
        var steps: [CodingPathStep] = []
        var current = from
        while current != target {
            let entry = entries[current]
            precondition(entry.kind == .array || entry.kind == .object, "an entry below one that holds nothing")
            if entry.kind == .object {
                var key = current + 1
                while target >= after(key + 1) { key = after(key + 1) }
                steps.append(.name(string(at: key)))
                current = key + 1
            } else {
                var element = current + 1
                var position = 0
                while target >= after(element) {
                    element = after(element)
                    position += 1
                }
                steps.append(.index(position))
                current = element
            }
        }
        return steps
    }

    /// The value at `index`, as a ``JSONValue``: what ``JSONParser`` makes of the same text.
    func value(at index: Int) -> JSONValue {
        let entry = entries[index]
        switch entry.kind {
        case .null: return .null
        case .bool: return .bool(entry.flag)
        case .integer: return .integer(Int64(entry.first))
        case .double: return .double(Double(bitPattern: UInt64(UInt(bitPattern: entry.first))))
        case .string: return .string(string(at: index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(entry.second)
            var element = index + 1
            while element < entry.first {
                elements.append(value(at: element))
                element = after(element)
            }
            return .array(elements)
        case .object:
            var members = [String: JSONValue](minimumCapacity: entry.second)
            var key = index + 1
            while key < entry.first {
                members[string(at: key)] = value(at: key + 1)
                key = after(key + 1)
            }
            return .object(members)
        }
    }

    /// The value at `index` if it is a scalar; an empty array or object stands for a container
    /// (what an error message says of it). No string is made for a number or a literal.
    func scalar(at index: Int) -> JSONValue {
        switch entries[index].kind {
        case .array: return .array([])
        case .object: return .object([:])
        default: return value(at: index)
        }
    }
}

/// The sink that makes a ``JSONTape``'s entries as ``JSONParser`` reads the text.
private struct JSONTapeBuilder: JSONScanSink {
    /// The text being read (for the keys' bytes, when an object's end compares them).
    var text = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    var entries: [JSONTape.Entry] = []
    var escaped: [UInt8] = []
    /// The innermost open container's entry (-1: none). Each open container's entry holds the
    /// one around it in ``JSONTape/Entry/first`` until it ends.
    private var open = -1

    /// Counts a value into the innermost open array (an object counts its keys).
    private mutating func countElement() {
        if open >= 0, entries[open].kind == .array { entries[open].second += 1 }
    }

    private mutating func append(_ text: ScannedString, kind: JSONTape.Kind, offset: Int = 0) {
        var entry = JSONTape.Entry(kind: kind, flag: text.isASCII, offset: offset)
        if let source = text.source {
            entry.first = source.lowerBound
            entry.second = source.upperBound
        } else {
            entry.isEscaped = true
            entry.first = escaped.count
            escaped.append(contentsOf: text.content)
            entry.second = escaped.count
        }
        entries.append(entry)
    }

    private mutating func begin(_ kind: JSONTape.Kind) {
        countElement()
        entries.append(JSONTape.Entry(kind: kind, first: open))
        open = entries.count - 1
    }

    /// Closes the innermost container: its entry gets its end, and the one around it is open.
    private mutating func end() -> Int {
        let index = open
        open = entries[index].first
        entries[index].first = entries.count
        return index
    }

    mutating func beginObject() { begin(.object) }

    mutating func key(_ text: ScannedString, offset: Int) {
        entries[open].second += 1
        append(text, kind: .string, offset: offset)
    }

    mutating func endObject() throws(JSONSyntaxError) {
        let index = end()
        try refuseDuplicateKeys(inObjectAt: index)
    }

    mutating func beginArray() { begin(.array) }

    mutating func endArray() { _ = end() }

    mutating func string(_ text: ScannedString) {
        countElement()
        append(text, kind: .string)
    }

    mutating func number(_ value: JSONValue) {
        countElement()
        switch value {
        case let .integer(integer): entries.append(JSONTape.Entry(kind: .integer, first: Int(integer)))
        case let .double(double): entries.append(JSONTape.Entry(kind: .double, first: Int(bitPattern: UInt(double.bitPattern))))
        default: preconditionFailure("the scanner hands on numbers as integers or doubles")
        }
    }

    mutating func literal(_ value: JSONValue) {
        countElement()
        if case let .bool(bool) = value {
            entries.append(JSONTape.Entry(kind: .bool, flag: bool))
        } else {
            entries.append(JSONTape.Entry(kind: .null))
        }
    }

    // MARK: Keys given twice

    /// Refuses the object whose entry is at `index` if it has a key twice, naming the first
    /// key that repeats one before it, as ``JSONParser`` does; keys compare as Swift strings.
    private func refuseDuplicateKeys(inObjectAt index: Int) throws(JSONSyntaxError) {
        let count = entries[index].second
        guard count > 1 else { return }
        let end = entries[index].first
        if count > 16 {
            var seen = Set<String>(minimumCapacity: count)
            var key = index + 1
            while key < end {
                let name = string(at: key)
                if !seen.insert(name).inserted { throw JSONSyntaxError.duplicateKey(name, at: entries[key].offset) }
                key = after(key + 1)
            }
            return
        }
        var key = after(index + 2)
        while key < end {
            var earlier = index + 1
            while earlier < key {
                if same(earlier, key) { throw JSONSyntaxError.duplicateKey(string(at: key), at: entries[key].offset) }
                earlier = after(earlier + 1)
            }
            key = after(key + 1)
        }
    }

    private func after(_ index: Int) -> Int {
        let entry = entries[index]
        return entry.kind == .array || entry.kind == .object ? entry.first : index + 1
    }

    private func withBytes<R>(of index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let entry = entries[index]
        if entry.isEscaped {
            return escaped.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[entry.first ..< entry.second])) }
        }
        return body(UnsafeBufferPointer(rebasing: text[entry.first ..< entry.second]))
    }

    private func string(at index: Int) -> String {
        withBytes(of: index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether two keys are the same string: by their bytes when both are ASCII, else as
    /// Swift strings (`"é"` precomposed and decomposed are one key).
    private func same(_ one: Int, _ other: Int) -> Bool {
        guard entries[one].flag, entries[other].flag else { return string(at: one) == string(at: other) }
        return withBytes(of: one) { first in
            withBytes(of: other) { second in JSONTape.same(first, second) }
        }
    }
}
