/// The client's first frame: who it is and which protocol it speaks.
package struct Hello: Codable, Sendable, Equatable {
    /// The protocol version the client speaks (``ProtocolVersion/current``).
    package var protocolVersion: Int
    package var role: ClientRole
    /// Chosen by the client, stable for the life of the client process (a UUID is fine).
    package var client: String
    /// For people reading logs and status: the program and command, e.g. "shell-client attach".
    package var name: String

    package init(protocolVersion: Int = ProtocolVersion.current, role: ClientRole, client: String, name: String) {
        self.protocolVersion = protocolVersion
        self.role = role
        self.client = client
        self.name = name
    }

    /// The longest client id accepted, in bytes of UTF-8 (the core remembers ids in its ledger).
    package static let maximumClientBytes = 128
    /// The longest name accepted, in bytes of UTF-8.
    package static let maximumNameBytes = 256

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case role, client, name
    }

    /// Decodes a hello, refusing an empty or oversized client id and an oversized name (their
    /// sizes are checked before anything scans them).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        protocolVersion = try container.decode(Int.self, forKey: .protocolVersion)
        role = try container.decode(ClientRole.self, forKey: .role)
        client = try container.decode(String.self, forKey: .client)
        name = try container.decode(String.self, forKey: .name)
        guard (1 ... Self.maximumClientBytes).contains(client.utf8.count) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.client],
                debugDescription: "the client id must be 1 to \(Self.maximumClientBytes) bytes of UTF-8; this one is \(client.utf8.count)"))
        }
        guard name.utf8.count <= Self.maximumNameBytes else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.name],
                debugDescription: "the name must be at most \(Self.maximumNameBytes) bytes of UTF-8; this one is \(name.utf8.count)"))
        }
    }
}

/// The core's answer to a good hello: who it is, and the whole state at a revision.
package struct Welcome<State: Codable & Sendable>: Codable, Sendable {
    package var protocolVersion: Int
    /// Identifies this run of the core; it changes when the core restarts.
    package var core: String
    /// The core's process id, for status and supervision.
    package var pid: Int32
    /// How many clients receiving renditions (shells and watchers) are attached, counting this
    /// one if it is a shell or a watcher.
    package var shells: Int
    package var revision: UInt64
    package var snapshot: State

    package init(protocolVersion: Int = ProtocolVersion.current, core: String, pid: Int32, shells: Int, revision: UInt64, snapshot: State) {
        self.protocolVersion = protocolVersion
        self.core = core
        self.pid = pid
        self.shells = shells
        self.revision = revision
        self.snapshot = snapshot
    }

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case core, pid, shells, revision, snapshot
    }
}

extension Welcome: Equatable where State: Equatable {}

/// Ends a session politely, from either side.
package struct Bye: Codable, Sendable, Equatable {
    package var reason: String?

    package init(reason: String? = nil) {
        self.reason = reason
    }
}
