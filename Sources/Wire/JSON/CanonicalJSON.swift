/// JSON text in the one form ``WireJSON`` writes it: compact, object keys sorted by their UTF-8
/// bytes, strings escaped as the wire escapes them, numbers in their shortest form (see
/// `JSONByteWriter`). Text in this form reads back, through ``JSONParser``, as a value that
/// ``JSONSerializer`` writes as the very same bytes; so a program that receives such text can
/// pass it on, or add a member to it, without building the value and writing it again.
///
/// The check is strict JSON too: only text the parser reads is ever called canonical (valid
/// UTF-8, no raw control characters, the nesting limit), and, to stay on the safe side of the
/// parser's rules, keys must be printable ASCII without escapes (the parser compares keys after
/// Unicode normalization, bytes do not). Anything else is simply not canonical, and the caller
/// takes the general way, which also says what is wrong.
package enum CanonicalJSON {
    /// Whether `bytes` is exactly one JSON value in canonical form.
    /// - Parameters:
    ///   - bytes: the text.
    ///   - maximumDepth: how many arrays and objects may enclose one another, as for ``JSONParser``.
    package static func isCanonical(_ bytes: some Collection<UInt8>, maximumDepth: Int = JSONParser.defaultMaximumDepth) -> Bool {
        withBuffer(bytes) { buffer in
            var scanner = CanonicalScanner(bytes: buffer, maximumDepth: maximumDepth)
            return scanner.value(depth: 0) && scanner.position == buffer.count
        } ?? false
    }

    /// The text of a canonical object with one member set: `key` added at its place in the
    /// order of keys, or its value replaced if the object has it already. The result is
    /// canonical too, provided `value` is.
    /// - Parameters:
    ///   - key: the member's key: printable ASCII, without `"` or `\`.
    ///   - value: the member's value, as canonical JSON text.
    ///   - object: the object's text.
    /// - Returns: the new text, or nil when `object` is not a canonical object (or `key` not a
    ///   plain key).
    package static func setting(_ key: String, to value: some Collection<UInt8>, in object: some Collection<UInt8>) -> [UInt8]? {
        let keyBytes = Array(key.utf8)
        guard keyBytes.allSatisfy(CanonicalScanner.isPlainKeyByte) else { return nil }
        return withBuffer(object) { buffer -> [UInt8]? in
            var scanner = CanonicalScanner(bytes: buffer, maximumDepth: JSONParser.defaultMaximumDepth)
            guard let members = scanner.objectMembers(), scanner.position == buffer.count else { return nil }
            // The first member whose key does not come before the new one.
            let place = members.firstIndex { member in
                !CanonicalScanner.precedes(UnsafeBufferPointer(rebasing: buffer[member.key]), keyBytes)
            }
            var result: [UInt8] = []
            result.reserveCapacity(buffer.count + keyBytes.count + value.count + 4)
            let newMember = [UInt8(ascii: "\"")] + keyBytes + [UInt8(ascii: "\""), UInt8(ascii: ":")]
            guard let place else {
                // After every member: before the closing brace.
                result.append(contentsOf: buffer[..<(buffer.count - 1)])
                if !members.isEmpty { result.append(UInt8(ascii: ",")) }
                result.append(contentsOf: newMember)
                result.append(contentsOf: value)
                result.append(UInt8(ascii: "}"))
                return result
            }
            let member = members[place]
            // A member's text starts at its key's opening quote, one byte before the key.
            let memberStart = member.key.lowerBound - 1
            result.append(contentsOf: buffer[..<memberStart])
            result.append(contentsOf: newMember)
            result.append(contentsOf: value)
            if buffer[member.key].elementsEqual(keyBytes) {
                result.append(contentsOf: buffer[member.value.upperBound...])
            } else {
                result.append(UInt8(ascii: ","))
                result.append(contentsOf: buffer[memberStart...])
            }
            return result
        } ?? nil
    }

    private static func withBuffer<R>(_ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
        return Array(bytes).withUnsafeBufferPointer(body)
    }
}

/// One pass over JSON text, saying whether it is canonical; it never allocates, except to
/// check a number with a fraction or an exponent (rare in states).
struct CanonicalScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// Takes one canonical value at `position`.
    mutating func value(depth: Int) -> Bool {
        guard position < bytes.count else { return false }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            guard depth < maximumDepth else { return false }
            return object(depth: depth + 1) != nil
        case UInt8(ascii: "["):
            guard depth < maximumDepth else { return false }
            return array(depth: depth + 1)
        case Self.quote:
            return string()
        case UInt8(ascii: "t"):
            return literal("true")
        case UInt8(ascii: "f"):
            return literal("false")
        case UInt8(ascii: "n"):
            return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            return number()
        default:
            return false
        }
    }

    /// Where a member's key (inside its quotes) and its value are.
    typealias Member = (key: Range<Int>, value: Range<Int>)

    /// Takes a canonical object at `position` and returns its members; nil if it is not one.
    mutating func objectMembers() -> [Member]? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
        return object(depth: 1, collecting: true)
    }

    /// `{`, then members with keys in strictly increasing order (so each key once), then `}`.
    /// Returns the members when `collecting` (else none), or nil if the object is not canonical.
    private mutating func object(depth: Int, collecting: Bool = false) -> [Member]? {
        var members: [Member] = []
        position += 1
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return members
        }
        var previousKey: Range<Int>?
        while true {
            guard let key = plainKey() else { return nil }
            if let previousKey {
                guard Self.precedes(UnsafeBufferPointer(rebasing: bytes[previousKey]), UnsafeBufferPointer(rebasing: bytes[key])) else { return nil }
            }
            previousKey = key
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            let valueStart = position
            guard value(depth: depth) else { return nil }
            if collecting { members.append((key, valueStart ..< position)) }
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return members
            default:
                return nil
            }
        }
    }

    /// `[`, values separated by commas, `]`.
    private mutating func array(depth: Int) -> Bool {
        position += 1
        guard position < bytes.count else { return false }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return true
        }
        while true {
            guard value(depth: depth) else { return false }
            guard position < bytes.count else { return false }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return true
            default:
                return false
            }
        }
    }

    static func isPlainKeyByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != quote && byte != backslash
    }

    /// A key of printable ASCII without escapes; returns the range inside its quotes.
    private mutating func plainKey() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == Self.quote else { return nil }
        let start = position + 1
        var index = start
        while index < bytes.count, Self.isPlainKeyByte(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == Self.quote else { return nil }
        position = index + 1
        return start ..< index
    }

    /// A string as the wire writes it: raw UTF-8 except `"`, `\`, the control characters, DEL
    /// and the C1 controls, which are escaped, each in its one form.
    private mutating func string() -> Bool {
        var index = position + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20, byte < 0x7F, byte != Self.quote, byte != Self.backslash {
                index += 1
                continue
            }
            if byte == Self.quote {
                position = index + 1
                return true
            }
            if byte == Self.backslash {
                guard let length = escapeLength(at: index) else { return false }
                index += length
                continue
            }
            guard byte >= 0x80, let length = UTF8Validation.sequenceLength(at: index, in: bytes) else { return false }
            // U+0080...U+009F (C2 80...C2 9F) are written escaped.
            if byte == 0xC2, bytes[index + 1] <= 0x9F { return false }
            index += length
        }
        return false
    }

    /// The length of the escape at `index` if it is the one the wire writes for its character.
    private func escapeLength(at index: Int) -> Int? {
        guard index + 1 < bytes.count else { return nil }
        switch bytes[index + 1] {
        case Self.quote, Self.backslash, UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "b"), UInt8(ascii: "f"):
            return 2
        case UInt8(ascii: "u"):
            guard index + 5 < bytes.count, bytes[index + 2] == UInt8(ascii: "0"), bytes[index + 3] == UInt8(ascii: "0"),
                  let high = Self.lowercaseHex(bytes[index + 4]), let low = Self.lowercaseHex(bytes[index + 5])
            else { return nil }
            let code = high << 4 | low
            switch code {
            case 0x08, 0x09, 0x0A, 0x0C, 0x0D: return nil // written as \b \t \n \f \r
            case 0x00 ..< 0x20, 0x7F ... 0x9F: return 6
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") <= 9 }

    private static func lowercaseHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0 ..< count where bytes[position + offset] != word.utf8Start[offset] { return false }
        position += count
        return true
    }

    /// A whole number as the wire writes an Int64 (no leading zero; at most 18 digits, which
    /// always fit), or any other number exactly as the wire writes the double it reads as.
    private mutating func number() -> Bool {
        let start = position
        var index = position
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        let digits = index - digitsStart
        guard digits > 0, bytes[digitsStart] != UInt8(ascii: "0") || digits == 1 else { return false }
        var isWhole = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isWhole = false
            index += 1
            let fractionStart = index
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart else { return false }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isWhole = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
            guard index > exponentStart else { return false }
        }
        position = index
        let text = UnsafeBufferPointer(rebasing: bytes[start ..< index])
        // "-0" reads as a double (negative zero), checked as one; more than 18 digits may not
        // fit an Int64.
        let isNegativeZero = digitsStart > start && digits == 1 && bytes[digitsStart] == UInt8(ascii: "0")
        if isWhole, !isNegativeZero { return digits <= 18 }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else { return false }
        return JSONFragment.double(double).elementsEqual(text)
    }

    /// Whether `a` comes strictly before `b` in the order of their bytes.
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        var bIndex = b.startIndex
        for byte in a {
            guard bIndex != b.endIndex else { return false }
            let other = b[bIndex]
            if byte != other { return byte < other }
            b.formIndex(after: &bIndex)
        }
        return bIndex != b.endIndex
    }
}
