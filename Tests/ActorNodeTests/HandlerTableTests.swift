@testable import ActorNode
import Testing

/// The event loop's table of handlers: a token finds its handler without hashing, and a token
/// of a registration that ended finds nothing, also once its slot serves another.
@Suite("The event loop's handler table")
struct HandlerTableTests {
    private final class Probe: EventHandler {
        let name: String
        init(_ name: String) { self.name = name }
        func handleEvents(_ events: UInt32, scratch: UnsafeMutableRawBufferPointer) {}
    }

    private func name(_ table: HandlerTable, _ token: UInt64) -> String? {
        (table.handler(for: token) as? Probe)?.name
    }

    @Test("tokens find their handlers, never 0, each different")
    func finds() {
        var table = HandlerTable()
        let tokens = (0 ..< 100).map { table.add(Probe("h\($0)")) }
        #expect(!tokens.contains(0))
        #expect(Set(tokens).count == 100)
        for (index, token) in tokens.enumerated() { #expect(name(table, token) == "h\(index)") }
        #expect(table.handler(for: 0) == nil)
        #expect(table.handler(for: 1 << 40 | 5) == nil)
        #expect(table.handler(for: 1_000) == nil)
    }

    @Test("a removed registration's token finds nothing, also after its slot is used again")
    func staleTokens() {
        var table = HandlerTable()
        let first = table.add(Probe("first"))
        let other = table.add(Probe("other"))
        table.remove(first)
        #expect(table.handler(for: first) == nil)
        let reused = table.add(Probe("reused"))
        #expect(reused != first)
        #expect(table.handler(for: first) == nil)
        #expect(name(table, reused) == "reused")
        #expect(name(table, other) == "other")
        // Removing with a stale token leaves the slot's new handler in place.
        table.remove(first)
        #expect(name(table, reused) == "reused")
        table.remove(reused)
        table.remove(reused)
        #expect(table.handler(for: reused) == nil)
        let again = table.add(Probe("again"))
        #expect(name(table, again) == "again" && again != reused && again != first)
    }
}
