/// The version of the envelope and its rules. A client and a core must speak the same one;
/// the core answers a different version with an ``ErrorCode/versionMismatch`` error naming both.
package enum ProtocolVersion {
    package static let current = 1
}

/// The version of the CAMA tools, printed by `--version`.
package enum CAMAVersion {
    package static let current = "0.1.0"
}
