/// Reads an input as a sequence of choices: a target that needs more than one thing from its
/// input (a size, a split point, a kind of value) takes them one after the other from the
/// front, and what is left is the data. Past the end every choice is 0, so that any input,
/// however short, makes a complete case and libFuzzer can grow it a byte at a time.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    /// - Parameter bytes: the input.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been taken.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0 ..< bound` taken from the next byte (`bound` at most 256), or 0 past
    /// the end.
    /// - Parameter bound: how many choices there are.
    public mutating func choice(below bound: Int) -> Int {
        bound <= 1 ? 0 : Int(byte()) % bound
    }

    /// A number from the next two bytes, big-endian.
    public mutating func uint16() -> Int {
        Int(byte()) << 8 | Int(byte())
    }

    /// The next `count` bytes (fewer at the end).
    /// - Parameter count: how many.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = max(position, end) }
        return position < end ? Array(bytes[position ..< end]) : []
    }

    /// Every byte not yet taken.
    public mutating func rest() -> [UInt8] {
        bytes(bytes.count - position)
    }
}
