@_spi(ByteWriting) import Wire

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
        bytes.appendWritten(atMost: headerLength + payload.count) { cursor in
            cursor.writeRecord { $0.write(payload) }
        }
        return bytes
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

    /// The payload length the header at `offset` declares (0 when the header is cut short).
    static func declaredLength(_ bytes: [UInt8], at offset: Int) -> Int {
        guard bytes.count - offset >= 4 else { return 0 }
        return Int(readUInt32(bytes, at: offset))
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0 ..< 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}

extension ByteCursor {
    /// Writes a record whose payload `payload` writes: its header (the payload's length and
    /// checksum, filled in once it is written), then the payload (at most 8 + the payload's
    /// bytes).
    /// - Parameter payload: writes the payload.
    mutating func writeRecord(_ payload: (inout ByteCursor) -> Void) {
        let start = count
        writeZeros(DurableRecord.headerLength)
        payload(&self)
        let body = written(from: start + DurableRecord.headerLength)
        store(bigEndian: UInt32(truncatingIfNeeded: body.count), at: start)
        store(bigEndian: CRC32C.checksum(body), at: start + 4)
    }
}
