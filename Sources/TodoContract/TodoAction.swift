import Wire
/// What a shell can ask of the to-do list. Items are named by id, never by position, so two
/// shells acting at once never hit the wrong item.
///
/// JSON: `{"add":{"text":"buy milk"}}`, `{"clear":{}}` (or `"clear"`), `{"remove":{"id":3}}`,
/// `{"toggle":{"id":3}}`, `{"edit":{"id":3,"text":"oat milk"}}`, `{"move":{"id":3,"position":1}}`.
public enum TodoAction: Sendable, Equatable {
    /// Appends an item at the end of the list (CAMA's addNewItemAtLast).
    case add(text: String)
    /// Removes every item (CAMA's removeAll).
    case clear
    case remove(id: Int)
    /// Flips the item's done mark.
    case toggle(id: Int)
    case edit(id: Int, text: String)
    /// Moves the item to a 1-based position in the list.
    case move(id: Int, position: Int)

    /// The action names, as they appear in JSON and as shell verbs.
    public static let names = ["add", "clear", "remove", "toggle", "edit", "move"]
}

/// Reject codes of the to-do list.
public enum TodoRejectCode {
    public static let unknownItem = "unknown_item"
    public static let emptyText = "empty_text"
    public static let invalidText = "invalid_text"
    public static let badPosition = "bad_position"
    /// `add` when no id is left: `nextId` has reached `Int.max` (the counter's code, for the
    /// same reason: a number at the end of its range).
    public static let overflow = "overflow"
}

extension TodoAction: Codable {
    private struct Text: Codable { var text: String }
    private struct ID: Codable { var id: Int }
    private struct IDText: Codable { var id: Int; var text: String }
    private struct IDPosition: Codable { var id: Int; var position: Int }

    public init(from decoder: any Decoder) throws {
        let tag = try SingleKeyCoding.decodeTag(from: decoder, kind: "action", names: Self.names)
        switch tag.name {
        case "add":
            self = .add(text: try tag.decode(Text.self, kind: "add").text)
        case "clear":
            self = .clear
        case "remove":
            self = .remove(id: try tag.decode(ID.self, kind: "remove").id)
        case "toggle":
            self = .toggle(id: try tag.decode(ID.self, kind: "toggle").id)
        case "edit":
            let payload = try tag.decode(IDText.self, kind: "edit")
            self = .edit(id: payload.id, text: payload.text)
        default:
            let payload = try tag.decode(IDPosition.self, kind: "move")
            self = .move(id: payload.id, position: payload.position)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .add(text): try SingleKeyCoding.encode("add", Text(text: text), to: encoder)
        case .clear: try SingleKeyCoding.encode("clear", to: encoder)
        case let .remove(id): try SingleKeyCoding.encode("remove", ID(id: id), to: encoder)
        case let .toggle(id): try SingleKeyCoding.encode("toggle", ID(id: id), to: encoder)
        case let .edit(id, text): try SingleKeyCoding.encode("edit", IDText(id: id, text: text), to: encoder)
        case let .move(id, position): try SingleKeyCoding.encode("move", IDPosition(id: id, position: position), to: encoder)
        }
    }
}
