/// One entry of the to-do list. Its `id` is assigned by the core, stable, and never reused.
public struct TodoItem: Codable, Sendable, Equatable, Identifiable {
    public var id: Int
    public var text: String
    public var done: Bool

    public init(id: Int, text: String, done: Bool = false) {
        self.id = id
        self.text = text
        self.done = done
    }
}
