/// The client's first frame: who it is and which protocol it speaks.
package struct Hello: Codable, Sendable, Equatable {
    /// The protocol version the client speaks (``ProtocolVersion/current``).
    package var protocolVersion: Int
    package var role: ClientRole
    /// Chosen by the client, stable for the life of the client process (a UUID is fine).
    package var client: String
    /// For people reading logs and status: the program and command, e.g. "shell-client attach".
    package var name: String
    /// Whether the welcome is to carry the whole state. A script that only sends actions or
    /// asks queries says false, so that what it costs the core and itself does not grow with
    /// the state; a shell and a watcher need it (they follow the state from it), and may not
    /// say false. Written on the wire only when false (`"snapshot":false`).
    package var snapshot: Bool

    package init(protocolVersion: Int = ProtocolVersion.current, role: ClientRole, client: String, name: String, snapshot: Bool = true) {
        self.protocolVersion = protocolVersion
        self.role = role
        self.client = client
        self.name = name
        self.snapshot = snapshot
    }

    /// The longest client id accepted, in bytes of UTF-8 (the core remembers ids in its ledger).
    package static let maximumClientBytes = 128
    /// The longest name accepted, in bytes of UTF-8.
    package static let maximumNameBytes = 256

    enum CodingKeys: String, CodingKey {
        case protocolVersion = "protocol"
        case role, client, name, snapshot
    }

    /// Decodes a hello, refusing an empty or oversized client id, an oversized name (their
    /// sizes are checked before anything scans them), and a shell or watcher that wants no
    /// snapshot.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        protocolVersion = try container.decode(Int.self, forKey: .protocolVersion)
        role = try container.decode(ClientRole.self, forKey: .role)
        client = try container.decode(String.self, forKey: .client)
        name = try container.decode(String.self, forKey: .name)
        snapshot = try container.decodeIfPresent(Bool.self, forKey: .snapshot) ?? true
        if let (key, reason) = problem {
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath + [key], debugDescription: reason))
        }
    }

    /// What makes this hello one the core refuses although its fields decode, and which field:
    /// a shell or watcher that wants no snapshot, an empty or oversized client id, an
    /// oversized name. Nil for a good hello. (The one copy of these rules, for the general
    /// reader and ``HelloFrame``.)
    var problem: (key: CodingKeys, reason: String)? {
        guard snapshot || !role.receivesRenditions else {
            return (.snapshot, "a \(role.rawValue) follows the state from the welcome's snapshot, so only a script can say false")
        }
        guard (1 ... Self.maximumClientBytes).contains(client.utf8.count) else {
            return (.client, "the client id must be 1 to \(Self.maximumClientBytes) bytes of UTF-8; this one is \(client.utf8.count)")
        }
        guard name.utf8.count <= Self.maximumNameBytes else {
            return (.name, "the name must be at most \(Self.maximumNameBytes) bytes of UTF-8; this one is \(name.utf8.count)")
        }
        return nil
    }

    /// Encodes the hello; `snapshot` only when false, so that a hello that wants the state
    /// reads as it did before the key was added.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(protocolVersion, forKey: .protocolVersion)
        try container.encode(role, forKey: .role)
        try container.encode(client, forKey: .client)
        try container.encode(name, forKey: .name)
        if !snapshot { try container.encode(false, forKey: .snapshot) }
    }
}

/// The core's answer to a good hello: who it is, and the whole state at a revision (unless
/// the hello said it needs none: ``Hello/snapshot``).
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
    /// The state at ``revision``; nil, and absent from the frame, when the hello asked for
    /// none.
    package var snapshot: State?

    package init(protocolVersion: Int = ProtocolVersion.current, core: String, pid: Int32, shells: Int, revision: UInt64, snapshot: State?) {
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

    /// Decodes a welcome; a `snapshot` that is there is read as a state (`null` included),
    /// and only a missing one is nil.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        protocolVersion = try container.decode(Int.self, forKey: .protocolVersion)
        core = try container.decode(String.self, forKey: .core)
        pid = try container.decode(Int32.self, forKey: .pid)
        shells = try container.decode(Int.self, forKey: .shells)
        revision = try container.decode(UInt64.self, forKey: .revision)
        snapshot = container.contains(.snapshot) ? try container.decode(State.self, forKey: .snapshot) : nil
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
