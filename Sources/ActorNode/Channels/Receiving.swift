/// Anything a task can take messages from, one at a time, until it ends (nil).
///
/// Core and Shell read their input through this, so the same code reads a plain in-process
/// ``Chan`` or the far end of a socket.
package protocol Receiving<Element>: Sendable {
    associatedtype Element: Sendable
    /// The next message, or nil once the source has ended (or the calling task is cancelled).
    func receive() async -> Element?
}

/// Iterates any ``Receiving`` source with `for await`.
package struct ReceivingIterator<Source: Receiving>: AsyncIteratorProtocol {
    let source: Source

    package mutating func next() async -> Source.Element? {
        await source.receive()
    }
}

/// A source whose messages are transformed on the way out.
package struct MappedReceiving<Base: Receiving, Element: Sendable>: Receiving {
    let base: Base
    let transform: @Sendable (Base.Element) -> Element

    package func receive() async -> Element? {
        await base.receive().map(transform)
    }
}

extension Receiving {
    /// This source with every message passed through `transform`.
    package func map<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) -> MappedReceiving<Self, T> {
        MappedReceiving(base: self, transform: transform)
    }
}
