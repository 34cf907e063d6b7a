import Wire
/// One entry of the to-do list. Its `id` is assigned by the core, stable, and never reused.
public struct TodoItem: Codable, Sendable, Equatable, Identifiable {
    // The fields from the widest to the narrowest: no padding between them, so an item copied
    // unchanged into a list's changed chunk keeps its bytes, and the diff finds it unchanged by
    // them (see docs/APPS.md, "Long lists"); and an item takes 32 bytes in a list, not 40 (at
    // 100,000 items, 0.8 MB of the core's memory).
    public var id: Int
    public var text: String
    /// Focus periods completed on this item: 32 bits, which at one per 25 minutes last 100,000
    /// years.
    public var pomodoros: Int32
    public var done: Bool

    public init(id: Int, text: String, done: Bool = false, pomodoros: Int32 = 0) {
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
        pomodoros = try container.decodeIfPresent(Int32.self, forKey: .pomodoros) ?? 0
    }
}
