/// Writes a short text through a pointer, for the texts the core writes for every action (an
/// ack, a journal record) whose longest length is known before a byte is written: the pieces
/// go into one buffer with a bounds check each, and the buffer is appended to its array in one
/// copy, where appending each piece to the array would check its capacity and uniqueness each
/// time (callgrind: an ack's frame 1,000 instructions written piece by piece).
///
/// ``Swift/Array/appendWritten(atMost:_:)`` hands one out. A write past the room asked for
/// traps (a caller that counted wrong), never writes beyond it.
package struct ByteCursor {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// How many bytes are written.
    package private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// Makes room for `length` bytes and returns where they go.
    private mutating func claim(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(length <= buffer.count - count, "a text longer than the room asked for it")
        let place = buffer.baseAddress! + count
        count += length
        return place
    }

    /// Writes one byte.
    package mutating func write(_ byte: UInt8) {
        claim(1).pointee = byte
    }

    /// Writes bytes.
    package mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        UnsafeMutableRawPointer(claim(bytes.count)).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    }

    /// Writes `count` zero bytes (room for a header filled in later with ``store(bigEndian:at:)``).
    package mutating func writeZeros(_ count: Int) {
        claim(count).initialize(repeating: 0, count: count)
    }

    /// Writes an array's bytes.
    package mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes a slice's bytes.
    package mutating func write(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes a constant text.
    package mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The digits of 00 to 99, two by two: a constant in the executable's read-only data (a
    /// static array would be checked for its first use at every access).
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// Writes a whole number in decimal digits (at most 20 bytes), two at a time.
    package mutating func writeDecimal(_ value: UInt64) {
        let length = Self.decimalLength(value)
        let place = claim(length)
        let pairs = Self.digitPairs.utf8Start
        var value = value
        var end = length
        while value >= 100 {
            let pair = Int(truncatingIfNeeded: value % 100) &* 2
            value /= 100
            end -= 2
            place[end] = pairs[pair]
            place[end + 1] = pairs[pair + 1]
        }
        if value >= 10 {
            let pair = Int(truncatingIfNeeded: value) &* 2
            place[end - 2] = pairs[pair]
            place[end - 1] = pairs[pair + 1]
        } else {
            place[end - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
        }
    }

    /// How many decimal digits `value` has: found by halving the range (a few comparisons
    /// for the numbers an action's texts hold: a seq, a revision, a time's 10 digits of
    /// seconds) rather than by a power of ten per digit.
    static func decimalLength(_ value: UInt64) -> Int {
        if value < 100_000 {
            if value < 100 { return value < 10 ? 1 : 2 }
            return value < 1_000 ? 3 : value < 10_000 ? 4 : 5
        }
        if value < 10_000_000_000 {
            if value < 10_000_000 { return value < 1_000_000 ? 6 : 7 }
            return value < 100_000_000 ? 8 : value < 1_000_000_000 ? 9 : 10
        }
        var length = 11
        var power: UInt64 = 100_000_000_000
        while length < 20, value >= power {
            length += 1
            power &*= 10
        }
        return length
    }

    /// Writes millionths as a decimal number: the whole part, then up to six digits after the
    /// point without trailing zeros (none, and no point, for a whole number). At most 27 bytes.
    package mutating func writeMicroseconds(_ microseconds: UInt64) {
        writeDecimal(microseconds / 1_000_000)
        var fraction = microseconds % 1_000_000
        guard fraction != 0 else { return }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let place = claim(digits + 1)
        place[0] = UInt8(ascii: ".")
        for index in stride(from: digits, through: 1, by: -1) {
            place[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
    }

    /// Writes a finite double as the wire writes it (``JSONFragment/double(_:)``): at most 32
    /// bytes. A time of ``SystemTime``'s, a whole number of microseconds, is written from its
    /// digits; any other double by its shortest description.
    package mutating func writeDouble(_ value: Double) {
        if let microseconds = JSONByteWriter.wholeMicroseconds(value) {
            writeMicroseconds(microseconds)
        } else {
            write(JSONFragment.double(value))
        }
    }

    /// Writes a 32-bit number in 4 bytes, most significant first, at `offset` of what is
    /// written (a length or a checksum filled in once what follows it is written).
    package mutating func store(bigEndian value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "a header outside what is written")
        let place = buffer.baseAddress! + offset
        place[0] = UInt8(truncatingIfNeeded: value >> 24)
        place[1] = UInt8(truncatingIfNeeded: value >> 16)
        place[2] = UInt8(truncatingIfNeeded: value >> 8)
        place[3] = UInt8(truncatingIfNeeded: value)
    }

    /// The bytes written from `offset` on.
    package func written(from offset: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[offset ..< count])
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a cursor, at most `maximum` bytes, in one copy.
    /// - Parameters:
    ///   - maximum: the most bytes `body` may write.
    ///   - body: writes the text.
    package mutating func appendWritten(atMost maximum: Int, _ body: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximum) { buffer in
            var cursor = ByteCursor(buffer)
            body(&cursor)
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.count]))
        }
    }
}
