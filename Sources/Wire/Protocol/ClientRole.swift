/// What a client attaches for. Shells and watchers receive every rendition; scripts send
/// actions and read acks, and are spared the renditions.
public enum ClientRole: String, Codable, Sendable, CaseIterable {
    case shell
    case watcher
    case script

    /// Whether the core streams renditions to this client.
    public var receivesRenditions: Bool { self != .script }
}
