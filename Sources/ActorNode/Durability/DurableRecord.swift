/// How records sit in journal and snapshot files: a 4-byte big-endian payload length, a 4-byte
/// big-endian CRC-32C of the payload, then the payload (UTF-8 JSON).
///
/// The checksum tells a complete record from a torn one (a crash in the middle of a write) and
/// from corruption; the length lets a reader skip to the next record.
package enum DurableRecord {
    package static let headerLength = 8
    /// The largest payload a record may have: 256 MiB (a state that large is a mistake).
    package static let maximumPayloadLength = 256 << 20

    /// The bytes of a record holding `payload`.
    package static func encode(_ payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerLength + payload.count)
        append(UInt32(payload.count), to: &bytes)
        append(CRC32C.checksum(payload), to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// Starts a record at the end of `bytes`, whose payload the caller appends next: room for
    /// the header, which ``endRecord(in:startingAt:)`` fills in. Returns where the record starts.
    /// (A record made in place, without an array of its own.)
    static func beginRecord(in bytes: inout [UInt8]) -> Int {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: headerLength))
        return start
    }

    /// Fills in the header of the record that starts at `start`, its payload being everything
    /// after the header to the end of `bytes`.
    static func endRecord(in bytes: inout [UInt8], startingAt start: Int) {
        let length = UInt32(bytes.count - start - headerLength)
        let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[(start + headerLength)...])) }
        store(length, in: &bytes, at: start)
        store(checksum, in: &bytes, at: start + 4)
    }

    private static func store(_ value: UInt32, in bytes: inout [UInt8], at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    /// What is found at an offset of a file.
    package enum Scan: Equatable {
        /// A complete record whose checksum holds.
        case record(payload: ArraySlice<UInt8>, next: Int)
        /// The file ends here, cleanly.
        case end
        /// The file ends inside a record (a write that never finished).
        case truncated(available: Int, needed: Int)
        /// A complete record whose checksum fails, or an impossible length.
        case corrupt(String)
    }

    /// Reads the record at `offset` of `bytes`.
    package static func scan(_ bytes: [UInt8], at offset: Int) -> Scan {
        let available = bytes.count - offset
        if available == 0 { return .end }
        guard available >= headerLength else { return .truncated(available: available, needed: headerLength) }
        let length = Int(readUInt32(bytes, at: offset))
        let checksum = readUInt32(bytes, at: offset + 4)
        guard length <= maximumPayloadLength else {
            return .corrupt("a record claims \(length) bytes, more than the limit of \(maximumPayloadLength)")
        }
        guard available >= headerLength + length else {
            return .truncated(available: available, needed: headerLength + length)
        }
        let payload = bytes[offset + headerLength ..< offset + headerLength + length]
        guard CRC32C.checksum(payload) == checksum else {
            return .corrupt("checksum mismatch")
        }
        return .record(payload: payload, next: offset + headerLength + length)
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// The payload length the header at `offset` declares (0 when the header is cut short).
    static func declaredLength(_ bytes: [UInt8], at offset: Int) -> Int {
        guard bytes.count - offset >= 4 else { return 0 }
        return Int(readUInt32(bytes, at: offset))
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0 ..< 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}
