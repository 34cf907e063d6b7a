import Testing
@testable import ActorNode
import Wire

/// `diff`'s readable lines: one per operation of the patch between the two states, each
/// saying what was there before where it replaces or removes, and where a move comes from.
@Suite("diff's lines")
struct DiffLinesTests {
    private func pointer(_ text: String) -> JSONPointer { JSONPointer(tokens: text.split(separator: "/").map(String.init)) }

    @Test("add, remove, replace and move each read as one line")
    func lines() throws {
        let before = JSONValue.object(["items": .array([.string("a"), .string("b")]), "n": .integer(1)])
        let patch: JSONPatch = [
            .init(op: .replace, path: pointer("/n"), value: .integer(2)),
            .init(op: .add, path: pointer("/items/2"), value: .string("c")),
            .init(op: .remove, path: pointer("/items/0")),
            .move(from: pointer("/items/0"), to: pointer("/items/1")),
        ]
        #expect(DiffLines.lines(patch, before: before, from: 4, to: 5) == """
            replace /n: 1 -> 2
            add /items/2: "c"
            remove /items/0 (was "a")
            move /items/0 -> /items/1

            """)
        #expect(DiffLines.lines([], before: before, from: 4, to: 4) == "no change from revision 4 to 4\n")
    }

    @Test("text from the state is escaped before it reaches a terminal")
    func escaped() throws {
        let patch: JSONPatch = [.init(op: .add, path: pointer("/\u{1B}[2J"), value: .string("\u{1B}]0;x\u{07}"))]
        let line = DiffLines.lines(patch, before: .object([:]), from: 0, to: 1)
        #expect(!line.contains("\u{1B}") && !line.contains("\u{07}"), "\(line)")
    }
}
