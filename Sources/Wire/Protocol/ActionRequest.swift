/// An action sent by a client, numbered so that its answer (ack or reject) can be matched to it.
package struct ActionRequest<Action: Codable & Sendable>: Codable, Sendable {
    /// The sender's client id, as in its hello.
    package var client: String
    /// Per client, starting at 1 and growing by one per action; at most ``maximumSeq``.
    package var seq: UInt64

    /// The largest sequence number accepted: JSON numbers are read as 64-bit signed integers.
    package static var maximumSeq: UInt64 { UInt64(Int64.max) }
    package var action: Action

    package init(client: String, seq: UInt64, action: Action) {
        self.client = client
        self.seq = seq
        self.action = action
    }

    enum CodingKeys: String, CodingKey {
        case client, seq, action
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        client = try container.decode(String.self, forKey: .client)
        let seqRule = "seq must be a whole number from 1 to \(Self.maximumSeq)"
        guard container.contains(.seq) else {
            throw DecodingError.keyNotFound(CodingKeys.seq, .init(codingPath: container.codingPath, debugDescription: seqRule))
        }
        do {
            seq = try container.decode(UInt64.self, forKey: .seq)
        } catch let DecodingError.dataCorrupted(context) {
            // A number that does not fit (negative, fractional, too large): say what seq takes.
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.seq],
                debugDescription: "\(seqRule) (\(context.debugDescription))"))
        } catch {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath + [CodingKeys.seq],
                debugDescription: "\(seqRule) (\(describeDecodingFailure(error)))"))
        }
        guard (1 ... Self.maximumSeq).contains(seq) else {
            throw DecodingError.dataCorrupted(.init(codingPath: container.codingPath + [CodingKeys.seq], debugDescription: "\(seqRule); this one is \(seq)"))
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
package struct InvalidActionError: Error, Equatable, Sendable {
    package var seq: UInt64
    package var reason: String
}

/// The core's answer to an applied action.
package struct Ack: Codable, Sendable, Equatable {
    package var seq: UInt64
    /// The revision this action produced.
    package var revision: UInt64

    package init(seq: UInt64, revision: UInt64) {
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
