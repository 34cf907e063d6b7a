/// Reads JSON text into a ``JSONValue``, strictly.
///
/// Exactly RFC 8259 is accepted: no trailing commas, comments, single quotes, `NaN` or
/// `Infinity`, leading zeros or bare signs; no raw control characters inside strings; escapes
/// must be valid and a `\u` surrogate must come in a pair; the text must be UTF-8; only
/// whitespace may follow the value. On top of the RFC, this wire also refuses
///
/// - an object with the same key twice: clients in other languages disagree about which value
///   wins, so a message that says two things is refused rather than read one way here and
///   another way there. Keys are compared as Swift strings, that is after Unicode canonical
///   equivalence: `"é"` written precomposed and decomposed is the same key;
/// - nesting deeper than ``maximumDepth`` (512 unless told otherwise); the parser does not
///   recurse, so even a text of a million `[` fails with this error and not a stack overflow.
///
/// Numbers: a literal without fraction or exponent that fits `Int64` is ``JSONValue/integer(_:)``;
/// any other is ``JSONValue/double(_:)``, rounded to the nearest double (one that does not fit a
/// double at all, such as `1e400`, is refused). `-0` is `.double(-0.0)`, so that a negative zero
/// written by the encoder reads back as one.
///
/// Every error is a ``JSONSyntaxError`` with the byte offset and a one-line explanation.
package struct JSONParser: Sendable {
    /// The nesting limit unless told otherwise: far more than any message needs, far less than
    /// what would make trouble.
    package static let defaultMaximumDepth = 512

    /// How many arrays and objects may enclose one another; one more is an error.
    package var maximumDepth: Int

    /// - Parameters:
    ///   - maximumDepth: how many arrays and objects may enclose one another (0: none at all).
    package init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses a whole JSON text.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 text. Contiguous storage (`[UInt8]`, `ArraySlice`, `Data`) is read in
    ///     place; any other collection is copied first.
    package func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let parsedInPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer) }
        }
        if let parsedInPlace {
            return try parsedInPlace.get()
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer) }
        }.get()
    }

    /// Parses a whole JSON text from raw memory.
    ///
    /// - Parameters:
    ///   - bytes: the UTF-8 text; only read during the call.
    package func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        try parse(bytes.assumingMemoryBound(to: UInt8.self))
    }

    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var builder = JSONValueBuilder()
        try scan(bytes, into: &builder)
        return builder.result
    }

    /// Checks `bytes` against the grammar, handing what it reads to `sink` in text order: the
    /// one reading of JSON text, for every kind of result (a ``JSONValue``, a ``JSONTape``).
    /// - Parameters:
    ///   - bytes: the UTF-8 text; only read during the call.
    ///   - sink: what is told of each value, key and container.
    func scan<Sink: JSONScanSink>(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) throws(JSONSyntaxError) {
        var scanner = JSONScanner(bytes: bytes, maximumDepth: maximumDepth)
        try scanner.scanDocument(into: &sink)
    }
}

/// What ``JSONParser/scan(_:into:)`` hands on as it reads a document, in text order: every
/// scalar, key and container boundary, once the grammar has allowed it. A value inside a
/// container comes between its begin and its end; in an object each value follows its key.
protocol JSONScanSink {
    /// An object's `{`.
    mutating func beginObject()
    /// An object's key, read up to its `:`.
    /// - Parameters:
    ///   - text: its content.
    ///   - offset: where its opening quote is in the text.
    mutating func key(_ text: ScannedString, offset: Int)
    /// An object's `}`: it may refuse the object (a key it has twice).
    mutating func endObject() throws(JSONSyntaxError)
    /// An array's `[`.
    mutating func beginArray()
    /// An array's `]`.
    mutating func endArray()
    /// A string value.
    mutating func string(_ text: ScannedString)
    /// A number: ``JSONValue/integer(_:)`` or ``JSONValue/double(_:)``.
    mutating func number(_ value: JSONValue)
    /// `true`, `false` or `null`: ``JSONValue/bool(_:)`` or ``JSONValue/null``.
    mutating func literal(_ value: JSONValue)
}

/// A string as the scanner read it: its content with every escape resolved, valid only during
/// the call it is handed to.
struct ScannedString {
    /// The content's UTF-8 bytes (well-formed).
    let content: UnsafeBufferPointer<UInt8>
    /// Where the content is in the text when it had no escapes (then ``content`` is those very
    /// bytes); nil when escapes were resolved.
    let source: Range<Int>?
    /// Whether every byte of the content is ASCII.
    let isASCII: Bool

    /// The content as a String.
    var string: String { String(decoding: content, as: UTF8.self) }
}

extension JSONSyntaxError {
    /// The refusal of an object that has `key` twice, the second time at `offset`.
    static func duplicateKey(_ key: String, at offset: Int) -> JSONSyntaxError {
        var writer = JSONByteWriter()
        writer.writeString(key)
        let quoted = String(decoding: writer.bytes, as: UTF8.self)
        return JSONSyntaxError(offset: offset, message: "duplicate key \(quoted) in an object (at byte \(offset))")
    }
}

/// The sink that makes a ``JSONValue``: each container's members or elements wait on a stack
/// shared by all open containers, and become its dictionary or array at its end.
private struct JSONValueBuilder: JSONScanSink {
    /// An array or object whose end has not been reached yet.
    private struct OpenContainer {
        var isObject: Bool
        /// Where its elements or members start on ``pendingElements`` or ``pendingMembers``.
        var firstPending: Int
        /// The key read before the value now being parsed (objects only), and where it starts.
        var pendingKey = ""
        var pendingKeyOffset = 0
    }

    private var open: [OpenContainer] = []
    /// The elements of every open array, innermost last. An array's elements are copied out
    /// once, at its `]`, into an array of exactly their number: this stack's storage is reused,
    /// instead of every array growing (and reallocating) its own.
    private var pendingElements: [JSONValue] = []
    /// The members of every open object, innermost last; an object's dictionary is made at its
    /// `}` with room for exactly its members, so it is never rehashed while it grows.
    private var pendingMembers: [(key: String, keyOffset: Int, value: JSONValue)] = []
    /// The document, once its value is complete.
    private(set) var result = JSONValue.null

    /// Puts a complete value in the innermost open container, or makes it the document.
    private mutating func add(_ value: JSONValue) {
        guard let top = open.indices.last else {
            result = value
            return
        }
        if open[top].isObject {
            pendingMembers.append((open[top].pendingKey, open[top].pendingKeyOffset, value))
        } else {
            pendingElements.append(value)
        }
    }

    mutating func beginObject() {
        open.append(OpenContainer(isObject: true, firstPending: pendingMembers.count))
    }

    mutating func key(_ text: ScannedString, offset: Int) {
        open[open.count - 1].pendingKey = text.string
        open[open.count - 1].pendingKeyOffset = offset
    }

    /// Makes the object's dictionary; a key seen twice is an error.
    mutating func endObject() throws(JSONSyntaxError) {
        let first = open.removeLast().firstPending
        var members = [String: JSONValue](minimumCapacity: pendingMembers.count - first)
        for member in pendingMembers[first...] {
            if members.updateValue(member.value, forKey: member.key) != nil {
                throw JSONSyntaxError.duplicateKey(member.key, at: member.keyOffset)
            }
        }
        pendingMembers.removeSubrange(first...)
        add(.object(members))
    }

    mutating func beginArray() {
        open.append(OpenContainer(isObject: false, firstPending: pendingElements.count))
    }

    mutating func endArray() {
        let first = open.removeLast().firstPending
        let elements = Array(pendingElements[first...])
        pendingElements.removeSubrange(first...)
        add(.array(elements))
    }

    mutating func string(_ text: ScannedString) { add(.string(text.string)) }
    mutating func number(_ value: JSONValue) { add(value) }
    mutating func literal(_ value: JSONValue) { add(value) }
}

/// The byte values the grammar names.
private enum Byte {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let lowerE = UInt8(ascii: "e")
    static let upperE = UInt8(ascii: "E")
    static let apostrophe = UInt8(ascii: "'")

    static func isDigit(_ byte: UInt8) -> Bool { byte &- zero <= 9 }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// The kinds of the open containers, innermost last: the first 64 as bits of one word, so that
/// a document nested no deeper (every message) allocates nothing for them.
private struct ContainerStack {
    private var bits: UInt64 = 0
    private var deeper: [Bool] = []
    private(set) var count = 0

    /// Whether the innermost open container is an object; nil when none is open.
    var top: Bool? {
        guard count > 0 else { return nil }
        return count > 64 ? deeper[deeper.count - 1] : bits & (1 << (count - 1)) != 0
    }

    mutating func push(isObject: Bool) {
        if count >= 64 {
            deeper.append(isObject)
        } else if isObject {
            bits |= 1 << count
        } else {
            bits &= ~(1 << count)
        }
        count += 1
    }

    mutating func pop() {
        count -= 1
        if count >= 64 { deeper.removeLast() }
    }
}

/// One scan: the text, the position, and a reusable buffer for strings with escapes.
private struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0
    /// Where the bytes of a string with escapes are assembled; kept across strings so that
    /// its storage is allocated once per parse.
    var unescaped: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // MARK: The document

    mutating func scanDocument<Sink: JSONScanSink>(into sink: inout Sink) throws(JSONSyntaxError) {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONSyntaxError(offset: 0, message: "the text starts with a byte order mark (EF BB BF); JSON text must start with the value itself")
        }
        // The open containers, innermost last: true for an object. The scanner keeps them on
        // its own stack instead of recursing.
        var stack = ContainerStack()
        parsing: while true {
            // Here a value starts (after whitespace).
            skipWhitespace()
            guard position < bytes.count else { throw unexpected(expecting: "a value") }
            switch bytes[position] {
            case Byte.openBrace:
                try checkDepth(stack.count)
                position += 1
                sink.beginObject()
                skipWhitespace()
                if position < bytes.count, bytes[position] == Byte.closeBrace {
                    position += 1
                    try sink.endObject()
                } else {
                    try readKey(into: &sink, expecting: "a string (an object's key) or '}'")
                    stack.push(isObject: true)
                    continue parsing
                }
            case Byte.openBracket:
                try checkDepth(stack.count)
                position += 1
                sink.beginArray()
                skipWhitespace()
                if position < bytes.count, bytes[position] == Byte.closeBracket {
                    position += 1
                    sink.endArray()
                } else {
                    stack.push(isObject: false)
                    continue parsing
                }
            case Byte.quote:
                try scanString(into: &sink, keyOffset: nil)
            case Byte.minus, Byte.zero ... Byte.nine:
                sink.number(try parseNumber())
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                sink.literal(.bool(true))
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                sink.literal(.bool(false))
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                sink.literal(.null)
            default:
                throw unexpected(expecting: "a value")
            }

            // A value is complete: close every container that ends right after it.
            while let isObject = stack.top {
                skipWhitespace()
                if isObject {
                    guard position < bytes.count else { throw unexpected(expecting: "',' or '}' after an object's member") }
                    if bytes[position] == Byte.comma {
                        position += 1
                        skipWhitespace()
                        try readKey(into: &sink, expecting: "a string (an object's key)")
                        continue parsing
                    }
                    guard bytes[position] == Byte.closeBrace else { throw unexpected(expecting: "',' or '}' after an object's member") }
                    position += 1
                    stack.pop()
                    try sink.endObject()
                } else {
                    guard position < bytes.count else { throw unexpected(expecting: "',' or ']' after an array's element") }
                    if bytes[position] == Byte.comma {
                        position += 1
                        skipWhitespace()
                        if position < bytes.count, bytes[position] == Byte.closeBracket {
                            throw unexpected(expecting: "a value; a comma must not come right before ']'")
                        }
                        continue parsing
                    }
                    guard bytes[position] == Byte.closeBracket else { throw unexpected(expecting: "',' or ']' after an array's element") }
                    position += 1
                    stack.pop()
                    sink.endArray()
                }
            }
            break parsing
        }
        skipWhitespace()
        guard position == bytes.count else {
            throw unexpected(expecting: "the end of the text (only whitespace may follow the value)")
        }
    }

    private func checkDepth(_ depth: Int) throws(JSONSyntaxError) {
        if depth >= maximumDepth {
            throw JSONSyntaxError(offset: position, message: "nested more than \(maximumDepth) levels deep at byte \(position)")
        }
    }

    /// Reads `"key" :`, hands the key to `sink`, and leaves the position where the value starts.
    private mutating func readKey<Sink: JSONScanSink>(into sink: inout Sink, expecting: String) throws(JSONSyntaxError) {
        guard position < bytes.count, bytes[position] == Byte.quote else {
            if position < bytes.count, bytes[position] == Byte.closeBrace {
                throw unexpected(expecting: "\(expecting); a comma must not come right before '}'")
            }
            throw unexpected(expecting: expecting)
        }
        try scanString(into: &sink, keyOffset: position)
        skipWhitespace()
        guard position < bytes.count, bytes[position] == Byte.colon else {
            throw unexpected(expecting: "':' after an object's key")
        }
        position += 1
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, Byte.isWhitespace(bytes[position]) {
            position += 1
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = position
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard position < bytes.count, bytes[position] == byte else {
                position = start
                throw unexpected(expecting: "a value")
            }
            position += 1
        }
    }

    // MARK: Strings

    /// Reads a string starting at its opening quote, hands it to `sink` (as the key that starts
    /// at `keyOffset`, or as a value when that is nil), and leaves the position after the
    /// closing quote.
    private mutating func scanString<Sink: JSONScanSink>(into sink: inout Sink, keyOffset: Int?) throws(JSONSyntaxError) {
        let openingQuote = position
        position += 1
        let contentStart = position
        // The common case: no escapes. Bytes of multi-byte characters are all 0x80 or above, so
        // this loop looks for the three ASCII bytes that matter without decoding anything, and
        // notes whether there was any non-ASCII byte to check as UTF-8 afterwards.
        var allASCII = true
        // Plain ASCII eight bytes at a time first (most keys and words are), then byte by byte.
        position = PlainBytes.endOfPlainWords(in: bytes, from: position)
        while position < bytes.count {
            let byte = bytes[position]
            if byte == Byte.quote {
                let content = UnsafeBufferPointer(rebasing: bytes[contentStart ..< position])
                if !allASCII { try checkUTF8(contentStart ..< position) }
                let text = ScannedString(content: content, source: contentStart ..< position, isASCII: allASCII)
                position += 1
                if let keyOffset { sink.key(text, offset: keyOffset) } else { sink.string(text) }
                return
            }
            if byte == Byte.backslash {
                try scanStringWithEscapes(contentStart: contentStart, openingQuote: openingQuote, allASCII: allASCII)
                let isASCII = !unescaped.contains { $0 >= 0x80 }
                unescaped.withUnsafeBufferPointer { content in
                    let text = ScannedString(content: content, source: nil, isASCII: isASCII)
                    if let keyOffset { sink.key(text, offset: keyOffset) } else { sink.string(text) }
                }
                return
            }
            if byte < 0x20 {
                throw controlCharacterInString()
            }
            allASCII = allASCII && byte < 0x80
            position += 1
        }
        throw endInsideString(openingQuote: openingQuote)
    }

    /// The rest of a string that has escapes: its bytes are assembled in `unescaped`.
    private mutating func scanStringWithEscapes(contentStart: Int, openingQuote: Int, allASCII: Bool) throws(JSONSyntaxError) {
        var allASCII = allASCII
        unescaped.removeAll(keepingCapacity: true)
        var runStart = contentStart
        while position < bytes.count {
            let byte = bytes[position]
            if byte == Byte.quote {
                // Escapes only ever add well-formed UTF-8, so checking the raw text is enough.
                if !allASCII { try checkUTF8(contentStart ..< position) }
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart ..< position]))
                position += 1
                return
            }
            if byte == Byte.backslash {
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart ..< position]))
                try readEscape()
                runStart = position
                continue
            }
            if byte < 0x20 {
                throw controlCharacterInString()
            }
            allASCII = allASCII && byte < 0x80
            position += 1
        }
        throw endInsideString(openingQuote: openingQuote)
    }

    /// Refuses the bytes in `range` unless they are well-formed UTF-8.
    private func checkUTF8(_ range: Range<Int>) throws(JSONSyntaxError) {
        if let offset = UTF8Validation.firstInvalidOffset(in: range, of: bytes) {
            throw JSONSyntaxError(offset: offset, message: UTF8Validation.invalidMessage(at: offset, in: bytes))
        }
    }

    /// Reads one escape starting at its backslash and appends what it stands for.
    private mutating func readEscape() throws(JSONSyntaxError) {
        let start = position
        guard position + 1 < bytes.count else { throw endInsideString(openingQuote: nil) }
        let letter = bytes[position + 1]
        position += 2
        switch letter {
        case Byte.quote, Byte.backslash, Byte.slash: unescaped.append(letter)
        case UInt8(ascii: "b"): unescaped.append(0x08)
        case UInt8(ascii: "f"): unescaped.append(0x0C)
        case UInt8(ascii: "n"): unescaped.append(0x0A)
        case UInt8(ascii: "r"): unescaped.append(0x0D)
        case UInt8(ascii: "t"): unescaped.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHexUnit(escapeStart: start)
            var scalarValue = UInt32(unit)
            if (0xDC00 ... 0xDFFF).contains(unit) {
                throw JSONSyntaxError(offset: start, message: "lone surrogate \(Self.escapeText(unit)) at byte \(start): a low surrogate must follow a high one (\\ud800-\\udbff)")
            }
            if (0xD800 ... 0xDBFF).contains(unit) {
                // UTF-16 writes a character above U+FFFF as two escapes, high then low.
                let secondStart = position
                guard position + 1 < bytes.count, bytes[position] == Byte.backslash, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw JSONSyntaxError(offset: start, message: "lone surrogate \(Self.escapeText(unit)) at byte \(start): a high surrogate must be followed by a low one (\\udc00-\\udfff)")
                }
                position += 2
                let low = try readHexUnit(escapeStart: secondStart)
                guard (0xDC00 ... 0xDFFF).contains(low) else {
                    throw JSONSyntaxError(offset: start, message: "lone surrogate \(Self.escapeText(unit)) at byte \(start): a high surrogate must be followed by a low one (\\udc00-\\udfff), not \(Self.escapeText(low))")
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            // Not a surrogate, or a combined pair: always a valid scalar.
            UTF8.encode(Unicode.Scalar(scalarValue)!) { unescaped.append($0) }
        default:
            throw JSONSyntaxError(offset: start, message: "invalid escape \(Self.describeEscape(letter)) at byte \(start) inside a string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
    }

    /// The four hex digits after `\u`, with the position right after `u`.
    private mutating func readHexUnit(escapeStart: Int) throws(JSONSyntaxError) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0 ..< 4 {
            guard position < bytes.count else { throw endInsideString(openingQuote: nil) }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case Byte.zero ... Byte.nine: digit = byte - Byte.zero
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw JSONSyntaxError(offset: escapeStart, message: "invalid \\u escape at byte \(escapeStart): expected four hex digits")
            }
            unit = unit << 4 | UInt16(digit)
            position += 1
        }
        return unit
    }

    private func controlCharacterInString() -> JSONSyntaxError {
        let byte = bytes[position]
        let escape: String
        switch byte {
        case 0x0A: escape = "\\n"
        case 0x0D: escape = "\\r"
        case 0x09: escape = "\\t"
        case 0x08: escape = "\\b"
        case 0x0C: escape = "\\f"
        default: escape = Self.escapeText(UInt16(byte))
        }
        return JSONSyntaxError(offset: position, message: "control character \(UTF8Validation.hexByte(byte)) at byte \(position) inside a string; write it as \(escape)")
    }

    private func endInsideString(openingQuote: Int?) -> JSONSyntaxError {
        JSONSyntaxError(offset: bytes.count, message: "unexpected end of the text inside a string"
            + (openingQuote.map { " (it starts at byte \($0))" } ?? ""))
    }

    // MARK: Numbers

    /// Reads a number; the grammar is checked on the way, the value made at the end.
    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position
        let isNegative = bytes[position] == Byte.minus
        if isNegative {
            position += 1
            guard position < bytes.count, Byte.isDigit(bytes[position]) else {
                throw JSONSyntaxError(offset: start, message: "'-' at byte \(start) must be followed by a digit")
            }
        }
        // The digits, as one integer: exact as long as it fits; decimalExponent says where the
        // decimal point goes (significand × 10^decimalExponent).
        var significand: UInt64 = 0
        var significandIsExact = true
        var decimalExponent = 0
        func accumulate(_ byte: UInt8) -> Bool {
            let (times10, overflow1) = significand.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - Byte.zero))
            if overflow1 || overflow2 { return false }
            significand = sum
            return true
        }

        if bytes[position] == Byte.zero {
            position += 1
            if position < bytes.count, Byte.isDigit(bytes[position]) {
                throw JSONSyntaxError(offset: start, message: "the number at byte \(start) has a leading zero (write 0 alone, or 0.5)")
            }
        } else {
            while position < bytes.count, Byte.isDigit(bytes[position]) {
                if significandIsExact, !accumulate(bytes[position]) { significandIsExact = false }
                position += 1
            }
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == Byte.dot {
            isInteger = false
            position += 1
            guard position < bytes.count, Byte.isDigit(bytes[position]) else {
                throw JSONSyntaxError(offset: position, message: "expected a digit after the decimal point at byte \(position)")
            }
            while position < bytes.count, Byte.isDigit(bytes[position]) {
                if significandIsExact {
                    if accumulate(bytes[position]) { decimalExponent -= 1 } else { significandIsExact = false }
                }
                position += 1
            }
        }
        if position < bytes.count, bytes[position] == Byte.lowerE || bytes[position] == Byte.upperE {
            isInteger = false
            position += 1
            var exponentIsNegative = false
            if position < bytes.count, bytes[position] == Byte.minus || bytes[position] == Byte.plus {
                exponentIsNegative = bytes[position] == Byte.minus
                position += 1
            }
            guard position < bytes.count, Byte.isDigit(bytes[position]) else {
                throw JSONSyntaxError(offset: position, message: "expected a digit in the exponent at byte \(position)")
            }
            var exponent = 0
            while position < bytes.count, Byte.isDigit(bytes[position]) {
                // Beyond a million the number is infinite or zero anyway; stop counting there so
                // that a thousand digits of exponent cannot overflow.
                exponent = min(exponent * 10 + Int(bytes[position] - Byte.zero), 1_000_000)
                position += 1
            }
            decimalExponent += exponentIsNegative ? -exponent : exponent
        }

        if isInteger, significandIsExact {
            if !isNegative, significand <= UInt64(Int64.max) {
                return .integer(Int64(significand))
            }
            if isNegative, significand != 0, significand <= UInt64(Int64.max) + 1 {
                return .integer(Int64(truncatingIfNeeded: 0 &- significand))
            }
        }
        let double = try doubleValue(significand: significand, decimalExponent: decimalExponent,
                                     isExact: significandIsExact, isNegative: isNegative, text: start ..< position)
        return .double(double)
    }

    /// The nearest double to the number written at `text`.
    private func doubleValue(significand: UInt64, decimalExponent: Int, isExact: Bool, isNegative: Bool, text: Range<Int>) throws(JSONSyntaxError) -> Double {
        // Clinger's fast path: when the digits fit 53 bits and the power of ten is at most 10^22,
        // both are exact doubles, so one multiplication or division (correctly rounded by IEEE
        // 754) gives the correctly rounded result. Most numbers on the wire take this path.
        if isExact, significand <= 1 << 53, (-22 ... 22).contains(decimalExponent) {
            let magnitude = decimalExponent >= 0
                ? Double(significand) * Self.exactPowersOfTen[decimalExponent]
                : Double(significand) / Self.exactPowersOfTen[-decimalExponent]
            return isNegative ? -magnitude : magnitude
        }
        // Anything else goes to the standard library's correctly rounded conversion. The text
        // was checked against JSON's grammar, which that conversion also accepts.
        let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[text]), as: UTF8.self)) ?? .nan
        guard value.isFinite else {
            let written = String(decoding: UnsafeBufferPointer(rebasing: bytes[text.lowerBound ..< min(text.upperBound, text.lowerBound + 40)]), as: UTF8.self)
            throw JSONSyntaxError(offset: text.lowerBound, message: "the number \(written)\(text.count > 40 ? "…" : "") at byte \(text.lowerBound) is too large for a double")
        }
        return value
    }

    /// 10^0 ... 10^22, every one exactly representable as a double.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    // MARK: Messages

    /// The error for whatever is at the position, which is not what the grammar allows there.
    private func unexpected(expecting expected: String) -> JSONSyntaxError {
        guard position < bytes.count else {
            return JSONSyntaxError(offset: position, message: "unexpected end of the text; expected \(expected)")
        }
        let byte = bytes[position]
        let found: String
        switch byte {
        case 0x21 ... 0x7E where Self.isWordByte(byte):
            // A word, such as NaN, Infinity, True or undefined: show it whole.
            var end = position
            while end < bytes.count, end - position < 24, Self.isWordByte(bytes[end]) { end += 1 }
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[position ..< end]), as: UTF8.self)
            found = "'\(word)'"
        case Byte.apostrophe:
            found = "\"'\""
        case 0x21 ... 0x7E:
            found = "'\(Character(Unicode.Scalar(byte)))'"
        case 0x20, 0x09, 0x0A, 0x0D:
            found = "whitespace"
        case 0x00 ..< 0x20, 0x7F:
            found = "control character \(UTF8Validation.hexByte(byte))"
        default:
            guard let scalar = UTF8Validation.scalar(at: position, in: bytes) else {
                return JSONSyntaxError(offset: position, message: UTF8Validation.invalidMessage(at: position, in: bytes))
            }
            found = "character '\(scalar)' (U+\(Self.hex4(scalar.value)))"
        }
        var hint = ""
        switch byte {
        case Byte.apostrophe: hint = "; strings take double quotes"
        case Byte.slash: hint = "; JSON has no comments"
        default: break
        }
        return JSONSyntaxError(offset: position, message: "unexpected \(found) at byte \(position); expected \(expected)\(hint)")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), Byte.zero ... Byte.nine, UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static func escapeText(_ unit: UInt16) -> String {
        "\\u" + hex4(UInt32(unit)).lowercased()
    }

    private static func describeEscape(_ letter: UInt8) -> String {
        (0x21 ... 0x7E).contains(letter) ? "'\\\(Character(Unicode.Scalar(letter)))'" : "'\\' followed by byte \(UTF8Validation.hexByte(letter))"
    }

    /// At least four upper-case hex digits: `00E9`, `1F600`.
    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
