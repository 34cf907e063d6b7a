import FoundationEssentials

/// Random identifiers (a core's run, a client), as version-4 UUID strings in lower case.
///
/// Drawn from the system's generator (`getrandom`), which needs no descriptor: Foundation's
/// `UUID()` reads `/dev/urandom` here, and with no descriptor left it gives
/// `00000000-0000-4000-8000-000000000000`, the same for every process, which would make two
/// clients one in the ledger.
enum RandomIdentifier {
    /// A new identifier.
    static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0 ..< 8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40 // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80 // the RFC 4122 variant
        let uuid = UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()
    }
}
