import Wire
/// One entry of the to-do list. Its `id` is assigned by the core, stable, and never reused.
public struct TodoItem: Codable, Sendable, Equatable, Identifiable {
    // The Bool last: no padding between the fields, so an item copied unchanged into a list's
    // changed chunk keeps its bytes, and the diff finds it unchanged by them (see docs/APPS.md,
    // "Long lists").
    public var id: Int
    /// Focus periods completed on this item.
    public var pomodoros: Int
    public var text: String
    public var done: Bool

    public init(id: Int, text: String, done: Bool = false, pomodoros: Int = 0) {
        self.id = id
        self.text = text
        self.done = done
        self.pomodoros = pomodoros
    }

    enum CodingKeys: String, CodingKey {
        case id, text, done, pomodoros
    }

    /// Fields added after the first version (`pomodoros`) default when absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        text = try container.decode(String.self, forKey: .text)
        done = try container.decode(Bool.self, forKey: .done)
        pomodoros = try container.decodeIfPresent(Int.self, forKey: .pomodoros) ?? 0
    }
}
