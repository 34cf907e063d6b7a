/// CRC-32C (Castagnoli), the checksum of every journal and snapshot record: cheap, and good at
/// catching torn writes and flipped bits (it is what iSCSI, ext4 and many logs use).
public enum CRC32C {
    private static let table: [UInt32] = (0 ..< 256).map { byte in
        var crc = UInt32(byte)
        for _ in 0 ..< 8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1
        }
        return crc
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
