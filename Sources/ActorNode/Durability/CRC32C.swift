import CSystemShims

/// CRC-32C (Castagnoli), the checksum of every journal and snapshot record: cheap, and good at
/// catching torn writes and flipped bits (it is what iSCSI, ext4 and many logs use).
///
/// Computed by the CPU's own instruction where it has one (SSE 4.2 on x86-64: eight bytes per
/// instruction, a tenth of the instructions of the tables for a journal record); elsewhere
/// eight bytes at a time from tables ("slicing by 8": eight tables of 256 entries, one lookup
/// per byte but no dependency between the eight).
package enum CRC32C {
    /// Whether the CPU computes it.
    private static let inHardware = cama_crc32c_available() != 0

    /// Table `k` (entries `256 k ..< 256 (k + 1)`) gives the CRC of a byte followed by `k` zero
    /// bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0 ..< 256 {
            var crc = UInt32(byte)
            for _ in 0 ..< 8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
            }
            tables[byte] = crc
        }
        for slice in 1 ..< 8 {
            for byte in 0 ..< 256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    /// - Parameter bytes: the bytes.
    package static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) {
            return crc
        }
        return Array(bytes).withUnsafeBytes { checksum($0) }
    }

    private static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard inHardware, let start = bytes.baseAddress else { return tableChecksum(bytes) }
        return cama_crc32c_update(0xFFFF_FFFF, start, bytes.count) ^ 0xFFFF_FFFF
    }

    /// The checksum from the tables, whatever the CPU: what the hardware's must equal (tests).
    /// - Parameter bytes: the bytes.
    package static func tableChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < bytes.count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
            return crc ^ 0xFFFF_FFFF
        }
    }
}
