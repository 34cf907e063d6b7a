/// An action sent by a client, numbered so that its answer (ack or reject) can be matched to it.
public struct ActionRequest<Action: Codable & Sendable>: Codable, Sendable {
    /// The sender's client id, as in its hello.
    public var client: String
    /// Per client, starting at 1 and growing by one per action.
    public var seq: UInt64
    public var action: Action

    public init(client: String, seq: UInt64, action: Action) {
        self.client = client
        self.seq = seq
        self.action = action
    }

    enum CodingKeys: String, CodingKey {
        case client, seq, action
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        client = try container.decode(String.self, forKey: .client)
        do {
            seq = try container.decode(UInt64.self, forKey: .seq)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.seq],
                debugDescription: "seq must be a whole number from 0 to 2^64-1 (\(describeDecodingFailure(error)))"))
        }
        do {
            action = try container.decode(Action.self, forKey: .action)
        } catch {
            // The envelope is sound, only the action is not: the core rejects this one action
            // (with its seq) and keeps the connection, instead of treating it as a protocol error.
            let actionDepth = container.codingPath.count + 1
            throw InvalidActionError(seq: seq, reason: describeDecodingFailure(error, droppingPathPrefix: actionDepth))
        }
    }
}

extension ActionRequest: Equatable where Action: Equatable {}

/// Thrown while decoding an `action` message whose envelope is valid but whose action is not.
public struct InvalidActionError: Error, Equatable, Sendable {
    public var seq: UInt64
    public var reason: String
}

/// The core's answer to an applied action.
public struct Ack: Codable, Sendable, Equatable {
    public var seq: UInt64
    /// The revision this action produced.
    public var revision: UInt64

    public init(seq: UInt64, revision: UInt64) {
        self.seq = seq
        self.revision = revision
    }
}

/// The core's answer to an action it did not apply; the state did not change.
public struct Reject: Codable, Sendable, Equatable {
    public var seq: UInt64
    public var code: String
    public var message: String

    public init(seq: UInt64, code: String, message: String) {
        self.seq = seq
        self.code = code
        self.message = message
    }
}
