import Synchronization

/// Random numbers for effects: the system's in the core, a seeded sequence in tests, so that a
/// test knows which number "random" will be.
public final class RandomSource: Sendable {
    private let generator: Mutex<any RandomNumberGenerator & Sendable>

    /// The system's random numbers.
    public static var system: RandomSource { RandomSource(SystemRandomNumberGenerator()) }

    /// A repeatable sequence of numbers for `seed`.
    public static func seeded(_ seed: UInt64) -> RandomSource { RandomSource(SeededRandom(seed: seed)) }

    /// A source drawing from `generator`.
    /// - Parameter generator: the generator (``SeededRandom`` for tests).
    public init(_ generator: some RandomNumberGenerator & Sendable) {
        self.generator = Mutex(generator)
    }

    /// A number in `range`, uniformly.
    public func int(in range: ClosedRange<Int>) -> Int {
        generator.withLock { generator in
            var source = AnyGenerator(base: generator)
            defer { generator = source.base }
            return Int.random(in: range, using: &source)
        }
    }

    /// An element of `elements`, or nil when it is empty.
    public func element<T>(of elements: [T]) -> T? {
        guard !elements.isEmpty else { return nil }
        return elements[int(in: 0 ... elements.count - 1)]
    }
}

/// Lets an existential generator be used where a concrete one is expected.
private struct AnyGenerator: RandomNumberGenerator {
    var base: any RandomNumberGenerator & Sendable

    mutating func next() -> UInt64 {
        base.next()
    }
}
