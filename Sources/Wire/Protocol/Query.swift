/// A question about the past, from any client once welcomed: `{"query":{"id":1,"state_at":12}}`
/// (the state at a revision) or `{"query":{"id":2,"history":{...}}}` (the actions applied).
/// The core answers from its state directory, off its event loop: `entry` frames for a
/// history, then one `reply` with the query's id. Queries change nothing, so a read-only
/// bridge lets them through.
package struct Query: Codable, Sendable, Equatable {
    /// Chosen by the client; its reply and entries carry it.
    package var id: UInt64
    /// The revision whose state is asked for.
    package var stateAt: UInt64?
    /// The actions asked for.
    package var history: HistoryRequest?

    /// - Parameters:
    ///   - id: chosen by the client, echoed in the answer.
    ///   - stateAt: the revision whose state is asked for.
    ///   - history: the actions asked for (exactly one of the two is given).
    package init(id: UInt64, stateAt: UInt64? = nil, history: HistoryRequest? = nil) {
        self.id = id
        self.stateAt = stateAt
        self.history = history
    }

    enum CodingKeys: String, CodingKey {
        case id
        case stateAt = "state_at"
        case history
    }

    /// Decodes a query, refusing one that asks for both or neither.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UInt64.self, forKey: .id)
        stateAt = try container.decodeIfPresent(UInt64.self, forKey: .stateAt)
        history = try container.decodeIfPresent(HistoryRequest.self, forKey: .history)
        guard (stateAt == nil) != (history == nil) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath,
                debugDescription: "a query asks for one thing: state_at or history"))
        }
    }
}

/// Which applied actions a `history` query asks for. Every field is optional; together they
/// narrow the list.
package struct HistoryRequest: Codable, Sendable, Equatable {
    /// The first revision wanted.
    package var from: UInt64?
    /// The last revision wanted.
    package var to: UInt64?
    /// Only the last this many (of those the other fields select).
    package var last: Int?
    /// Only the actions of this client: its id, or the name from its hello.
    package var client: String?
    /// After what the journal holds, every action as it is applied, until the client goes.
    package var follow: Bool?

    /// The longest `client` accepted, in bytes of UTF-8 (a hello's name or id is shorter).
    package static let maximumClientBytes = 256

    /// - Parameters:
    ///   - from: the first revision wanted.
    ///   - to: the last revision wanted.
    ///   - last: only the last this many.
    ///   - client: only this client's actions (id or name).
    ///   - follow: go on with every new action.
    package init(from: UInt64? = nil, to: UInt64? = nil, last: Int? = nil, client: String? = nil, follow: Bool? = nil) {
        self.from = from
        self.to = to
        self.last = last
        self.client = client
        self.follow = follow
    }

    enum CodingKeys: String, CodingKey {
        case from, to, last, client, follow
    }

    /// Decodes a request, refusing a negative `last` and an oversized `client`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decodeIfPresent(UInt64.self, forKey: .from)
        to = try container.decodeIfPresent(UInt64.self, forKey: .to)
        last = try container.decodeIfPresent(Int.self, forKey: .last)
        client = try container.decodeIfPresent(String.self, forKey: .client)
        follow = try container.decodeIfPresent(Bool.self, forKey: .follow)
        if let last, last < 1 {
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath + [CodingKeys.last], debugDescription: "last must be at least 1"))
        }
        if let client, client.utf8.count > Self.maximumClientBytes {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.client],
                debugDescription: "client must be at most \(Self.maximumClientBytes) bytes of UTF-8"))
        }
    }
}

/// The core's answer to a ``Query``: `{"reply":{"id":1,"revision":12,"state":{...}}}` for
/// `state_at`; `{"reply":{"id":2,"revision":40}}` after a history's entries (the newest
/// revision the journal held when it was read: with `follow`, entries after it come as they
/// are applied); or `{"reply":{"id":3,"error":{"code":"not_held","message":"..."}}}`.
package struct Reply: Codable, Sendable, Equatable {
    package var id: UInt64
    package var revision: UInt64?
    package var state: JSONValue?
    package var error: ReplyError?

    /// - Parameters:
    ///   - id: the query's id.
    ///   - revision: the revision answered for.
    ///   - state: the state at that revision (`state_at`).
    ///   - error: why the query could not be answered.
    package init(id: UInt64, revision: UInt64? = nil, state: JSONValue? = nil, error: ReplyError? = nil) {
        self.id = id
        self.revision = revision
        self.state = state
        self.error = error
    }
}

/// Why a query was not answered; the connection stays open.
package struct ReplyError: Codable, Sendable, Equatable, CustomStringConvertible {
    /// `not_held` (a revision the state directory no longer or not yet holds), `no_journal` (a
    /// core that keeps none), `failed` (the files could not be read or replayed).
    package var code: String
    package var message: String

    /// - Parameters:
    ///   - code: what kind of failure.
    ///   - message: one line saying what happened and what to do.
    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}

/// One applied action of a history: `{"entry":{"id":2,"revision":12,"at":…,"by":{…},"action":{…}}}`.
/// `by` names who sent it: `{"client":ID,"seq":S,"name":…,"pid":…,"user":…}` for a client (what
/// its connection's record says; only `client` and `seq` when the journal holds no such record),
/// or `{"core":true}` for the core's own actions, with `"effect":ID` for one an effect with an
/// id sent and `"timer":ID` for a timer's firing.
package struct HistoryEntry: Codable, Sendable, Equatable {
    /// The query's id.
    package var id: UInt64
    package var revision: UInt64
    /// When it was applied, in seconds since 1970.
    package var at: Double
    package var by: JSONValue
    package var action: JSONValue

    /// - Parameters:
    ///   - id: the query's id.
    ///   - revision: the revision the action made.
    ///   - at: when, in seconds since 1970.
    ///   - by: who sent it.
    ///   - action: the action's JSON.
    package init(id: UInt64, revision: UInt64, at: Double, by: JSONValue, action: JSONValue) {
        self.id = id
        self.revision = revision
        self.at = at
        self.by = by
        self.action = action
    }
}
