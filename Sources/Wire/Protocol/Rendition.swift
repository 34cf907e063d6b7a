/// What the core tells every attached shell after a change: the state at `revision`, either whole
/// or as a JSON Patch from the state at `revision - 1`.
package struct Rendition<State: Codable & Sendable>: Codable, Sendable {
    package enum Content: Sendable {
        /// The whole state.
        case snapshot(State)
        /// An RFC 6902 patch that takes the JSON of the state at `revision - 1` to `revision`.
        case patch(JSONPatch)
    }

    package var revision: UInt64
    package var content: Content

    package init(revision: UInt64, content: Content) {
        self.revision = revision
        self.content = content
    }

    enum CodingKeys: String, CodingKey {
        case revision, snapshot, patch
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        revision = try container.decode(UInt64.self, forKey: .revision)
        if let patch = try container.decodeIfPresent(JSONPatch.self, forKey: .patch) {
            content = .patch(patch)
        } else if container.contains(.snapshot) {
            content = .snapshot(try container.decode(State.self, forKey: .snapshot))
        } else {
            throw DecodingError.keyNotFound(CodingKeys.snapshot, .init(
                codingPath: container.codingPath,
                debugDescription: "a rendition carries either \"snapshot\" or \"patch\""))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(revision, forKey: .revision)
        switch content {
        case let .snapshot(state): try container.encode(state, forKey: .snapshot)
        case let .patch(patch): try container.encode(patch, forKey: .patch)
        }
    }
}

extension Rendition.Content: Equatable where State: Equatable {}
extension Rendition: Equatable where State: Equatable {}
