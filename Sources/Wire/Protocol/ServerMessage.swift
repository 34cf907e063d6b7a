/// A frame from the core to a client: `welcome`, `ack`, `reject`, `rendition`, `notice`,
/// `presence`, `reply`, `entry`, `error` or `bye`.
package enum ServerMessage<State: Codable & Sendable>: Codable, Sendable {
    case welcome(Welcome<State>)
    case ack(Ack)
    case reject(Reject)
    case rendition(Rendition<State>)
    case notice(Notice)
    case presence(Presence)
    case reply(Reply)
    case entry(HistoryEntry)
    case error(ErrorMessage)
    case bye(Bye)

    static var names: [String] { ServerMessageNames.all }

    /// Throws ``UnknownMessageType`` for a well-formed message of a type not listed here, so that
    /// clients can skip what a newer core sends.
    package init(from decoder: any Decoder) throws {
        if let key = SingleKeyCoding.singleKey(in: decoder), !Self.names.contains(key) {
            throw UnknownMessageType(name: key)
        }
        if let name = SingleKeyCoding.bareString(in: decoder), !Self.names.contains(name) {
            throw UnknownMessageType(name: name)
        }
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "message", names: Self.names)
        switch tag.name {
        case "welcome": self = .welcome(try tag.decode(Welcome<State>.self, kind: "welcome"))
        case "ack": self = .ack(try tag.decode(Ack.self, kind: "ack"))
        case "reject": self = .reject(try tag.decode(Reject.self, kind: "reject"))
        case "rendition": self = .rendition(try tag.decode(Rendition<State>.self, kind: "rendition"))
        case "notice": self = .notice(try tag.decode(Notice.self, kind: "notice"))
        case "presence": self = .presence(try tag.decode(Presence.self, kind: "presence"))
        case "reply": self = .reply(try tag.decode(Reply.self, kind: "reply"))
        case "entry": self = .entry(try tag.decode(HistoryEntry.self, kind: "entry"))
        case "error": self = .error(try tag.decode(ErrorMessage.self, kind: "error"))
        default: self = .bye(try tag.payload.map { try Bye(from: $0) } ?? Bye())
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case let .welcome(welcome): try SingleKeyCoding.encode("welcome", welcome, to: encoder)
        case let .ack(ack): try SingleKeyCoding.encode("ack", ack, to: encoder)
        case let .reject(reject): try SingleKeyCoding.encode("reject", reject, to: encoder)
        case let .rendition(rendition): try SingleKeyCoding.encode("rendition", rendition, to: encoder)
        case let .notice(notice): try SingleKeyCoding.encode("notice", notice, to: encoder)
        case let .presence(presence): try SingleKeyCoding.encode("presence", presence, to: encoder)
        case let .reply(reply): try SingleKeyCoding.encode("reply", reply, to: encoder)
        case let .entry(entry): try SingleKeyCoding.encode("entry", entry, to: encoder)
        case let .error(error): try SingleKeyCoding.encode("error", error, to: encoder)
        case let .bye(bye): try SingleKeyCoding.encode("bye", bye, to: encoder)
        }
    }
}

extension ServerMessage {
    /// The message's type as the wire names it: `welcome`, `ack`, and so on.
    package var name: String {
        switch self {
        case .welcome: "welcome"
        case .ack: "ack"
        case .reject: "reject"
        case .rendition: "rendition"
        case .notice: "notice"
        case .presence: "presence"
        case .reply: "reply"
        case .entry: "entry"
        case .error: "error"
        case .bye: "bye"
        }
    }
}

extension ServerMessage {
    /// This message's frame: its JSON as ``WireJSON`` writes it, with the length prefix; what
    /// the core sends of every message it does not write by hand (those are written beside
    /// their readers: ``ScriptFrames/ackFrame(seq:revision:)``,
    /// ``WelcomeFrame/frame(protocolVersion:core:pid:shells:revision:snapshot:)``,
    /// ``Rendition/snapshotFrame(revision:snapshot:)``). A message that cannot be written (a
    /// value holding a NaN, a payload past what a frame can carry) becomes the frame of an
    /// `internal_error` that says so, so that the client hears that something went wrong.
    package func frame() -> [UInt8] {
        do {
            return try Frame.encode(WireJSON.encode(self), maximumPayloadLength: Frame.absoluteMaximumPayloadLength)
        } catch {
            let failure = ServerMessage<JSONValue>.error(ErrorMessage(.internalError, "the core could not send a message: \(error)"))
            return (try? Frame.encode(WireJSON.encode(failure))) ?? []
        }
    }
}

extension ServerMessage: Equatable where State: Equatable {}

/// The names of server messages, made once (a generic type cannot have a stored static).
private enum ServerMessageNames {
    static let all = ["welcome", "ack", "reject", "rendition", "notice", "presence", "reply", "entry", "error", "bye"]
}
