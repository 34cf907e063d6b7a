/// What a client attaches for. Shells and watchers receive every rendition; scripts send
/// actions and read acks, and are spared the renditions.
package enum ClientRole: String, Codable, Sendable, CaseIterable {
    case shell
    case watcher
    case script

    /// Whether the core streams renditions to this client.
    package var receivesRenditions: Bool { self != .script }

    /// Decodes a role, naming the ones there are when it is none of them.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let role = ClientRole(rawValue: name) else {
            let shown = name.utf8.count > 32 ? String(name.prefix(32)) + "…" : name
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "unknown role '\(shown)' (expected one of \(ClientRole.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        self = role
    }
}
