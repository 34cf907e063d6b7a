/// Writes a short text through a pointer, for the texts the core writes for every action (an
/// ack, a journal record) whose longest length is known before a byte is written: the pieces
/// go into one buffer with a bounds check each, and the buffer is appended to its array in one
/// copy, where appending each piece to the array would check its capacity and uniqueness each
/// time (callgrind: an ack's frame 1,000 instructions written piece by piece).
///
/// ``Swift/Array/appendWritten(atMost:_:)`` hands one out. A write past the room asked for
/// traps (a caller that counted wrong), never writes beyond it.
///
/// Public to the modules of this package that import it with `@_spi(ByteWriting)`, and not
/// otherwise: its writes of bytes are inlinable, which a `package` declaration is not in
/// another module (the core's journal writes a record's pieces through it from ActorNode, and
/// a call for each piece cost more than the piece's copy).
@_spi(ByteWriting) public struct ByteCursor {
    @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
    @usableFromInline var written = 0

    /// How many bytes are written.
    @inlinable public var count: Int { written }

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// Makes room for `length` bytes and returns where they go.
    @inlinable @inline(__always)
    mutating func claim(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        precondition(length <= buffer.count - written, "a text longer than the room asked for it")
        let place = buffer.baseAddress! + written
        written += length
        return place
    }

    /// Writes one byte.
    @inlinable @inline(__always)
    public mutating func write(_ byte: UInt8) {
        claim(1).pointee = byte
    }

    /// Writes bytes. From 4 to 16 of them (a key, a number's text) are copied as two words
    /// that overlap, which costs less than calling the C library's `memcpy` for them.
    @inlinable @inline(__always)
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        guard length > 0 else { return }
        let target = UnsafeMutableRawPointer(claim(length))
        let source = bytes.baseAddress!
        if length >= 8, length <= 16 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: length - 8, as: UInt64.self)
        } else if length >= 4, length < 8 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: length - 4, as: UInt32.self)
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
    }

    /// Writes `count` zero bytes (room for a header filled in later with ``store(bigEndian:at:)``).
    @inlinable @inline(__always)
    public mutating func writeZeros(_ count: Int) {
        claim(count).initialize(repeating: 0, count: count)
    }

    /// Writes an array's bytes.
    @inlinable @inline(__always)
    public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes a slice's bytes.
    @inlinable @inline(__always)
    public mutating func write(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes a constant text.
    @inlinable @inline(__always)
    public mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The digits of 00 to 99, two by two: a constant in the executable's read-only data (a
    /// static array would be checked for its first use at every access).
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// Writes a whole number in decimal digits (at most 20 bytes): four at a time (one 64-bit
    /// division for each four; the two pairs of a four from 32-bit arithmetic), then the
    /// last one to four.
    public mutating func writeDecimal(_ value: UInt64) {
        let length = Self.decimalLength(value)
        let place = claim(length)
        let pairs = Self.digitPairs.utf8Start
        var value = value
        var end = length
        while value >= 10_000 {
            let four = UInt32(truncatingIfNeeded: value % 10_000)
            value /= 10_000
            let high = Int(four / 100) &* 2
            let low = Int(four % 100) &* 2
            place[end - 4] = pairs[high]
            place[end - 3] = pairs[high + 1]
            place[end - 2] = pairs[low]
            place[end - 1] = pairs[low + 1]
            end -= 4
        }
        var rest = UInt32(truncatingIfNeeded: value)
        if rest >= 100 {
            let low = Int(rest % 100) &* 2
            rest /= 100
            place[end - 2] = pairs[low]
            place[end - 1] = pairs[low + 1]
            end -= 2
        }
        if rest >= 10 {
            let pair = Int(rest) &* 2
            place[end - 2] = pairs[pair]
            place[end - 1] = pairs[pair + 1]
        } else {
            place[end - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
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
    public mutating func writeMicroseconds(_ microseconds: UInt64) {
        writeDecimal(microseconds / 1_000_000)
        let fraction = Int(truncatingIfNeeded: microseconds % 1_000_000)
        guard fraction != 0 else { return }
        // The point and all six digits, two at a time, then the trailing zeros taken back
        // (there is a digit other than zero: the fraction is not).
        let place = claim(7)
        let pairs = Self.digitPairs.utf8Start
        let high = fraction / 10_000 &* 2
        let middle = fraction / 100 % 100 &* 2
        let low = fraction % 100 &* 2
        place[0] = UInt8(ascii: ".")
        place[1] = pairs[high]
        place[2] = pairs[high + 1]
        place[3] = pairs[middle]
        place[4] = pairs[middle + 1]
        place[5] = pairs[low]
        place[6] = pairs[low + 1]
        var end = 7
        while place[end - 1] == UInt8(ascii: "0") { end -= 1 }
        written -= 7 - end
    }

    /// Writes a finite double as the wire writes it (``JSONFragment/double(_:)``): at most 32
    /// bytes. A time of ``SystemTime``'s, a whole number of microseconds, is written from its
    /// digits; any other double by its shortest description.
    public mutating func writeDouble(_ value: Double) {
        if let microseconds = JSONByteWriter.wholeMicroseconds(value) {
            writeMicroseconds(microseconds)
        } else {
            write(JSONFragment.double(value))
        }
    }

    /// Writes a 32-bit number in 4 bytes, most significant first, at `offset` of what is
    /// written (a length or a checksum filled in once what follows it is written).
    @inlinable @inline(__always)
    public mutating func store(bigEndian value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "a header outside what is written")
        let place = buffer.baseAddress! + offset
        place[0] = UInt8(truncatingIfNeeded: value >> 24)
        place[1] = UInt8(truncatingIfNeeded: value >> 16)
        place[2] = UInt8(truncatingIfNeeded: value >> 8)
        place[3] = UInt8(truncatingIfNeeded: value)
    }

    /// The bytes written from `offset` on.
    @inlinable @inline(__always)
    public func written(from offset: Int) -> UnsafeRawBufferPointer {
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
