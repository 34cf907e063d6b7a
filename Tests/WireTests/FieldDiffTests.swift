import ActorNode
import Testing
@testable import Wire

/// The diff every state gets from its own coding keys (``FieldDiff``): no field can be left out,
/// optionals come and go as the encoder writes them, and the patch always takes the old JSON
/// to the new.
@Suite("Diffs from the coding keys")
struct FieldDiffTests {
    struct Poll: Codable, Equatable {
        var question = "lunch?"
        var options: [Option] = []
        var closed = false
        /// Nil until the poll closes; the encoder leaves it out while nil.
        var winner: Int?
        var note: Note?
        var tally: [String: Int] = [:]
        var phase = Phase.open
        var history: [Int] = []
        var ratio = 0.5

        enum CodingKeys: String, CodingKey {
            case question, options, closed, winner = "won_by", note, tally, phase, history, ratio
        }
    }

    struct Option: Codable, Equatable, Identifiable {
        var id: Int
        var text: String
        var votes = 0
        var by: String?
    }

    struct Note: Codable, Equatable {
        var text: String
        var pinned = false
    }

    /// An enum with associated values: nested containers, so replaced whole.
    enum Phase: Codable, Equatable {
        case open
        case closing(at: Int)
        case closed(reason: String)
    }

    @Test("an optional that becomes non-nil is added, and removed when it becomes nil again")
    func optionalComesAndGoes() throws {
        let open = Poll()
        var closed = open
        closed.closed = true
        closed.winner = 1
        #expect(try JSONPatch(from: open, to: closed) == [
            .replace(JSONPointer("/closed")!, .bool(true)),
            .add(JSONPointer("/won_by")!, .integer(1)),
        ])
        #expect(try JSONPatch(from: closed, to: open) == [
            .replace(JSONPointer("/closed")!, .bool(false)),
            .remove(JSONPointer("/won_by")!),
        ])
        try PatchCheck.verify(from: open, to: closed)
        try PatchCheck.verify(from: closed, to: open)
    }

    @Test("a nested struct is patched member by member; an element of an Identifiable array in place")
    func nestedInPlace() throws {
        var old = Poll()
        old.note = Note(text: "bring cash")
        old.options = [Option(id: 1, text: "pizza"), Option(id: 2, text: "sushi")]
        var new = old
        new.note?.pinned = true
        new.options[1].votes = 3
        #expect(try JSONPatch(from: old, to: new) == [
            .replace(JSONPointer("/options/1/votes")!, .integer(3)),
            .replace(JSONPointer("/note/pinned")!, .bool(true)),
        ])
    }

    @Test("an enum with associated values, and an array of numbers, are replaced whole when changed")
    func wholeValues() throws {
        let old = Poll()
        var new = old
        new.phase = .closing(at: 30)
        new.history = [1, 2]
        #expect(try JSONPatch(from: old, to: new) == [
            .replace(JSONPointer("/phase")!, try JSONValue(encoding: Phase.closing(at: 30))),
            .replace(JSONPointer("/history")!, .array([.integer(1), .integer(2)])),
        ])
        #expect(try JSONPatch(from: new, to: new).isEmpty)
    }

    @Test("random edits of every kind of member: the patch, sent as JSON text, takes the old JSON to the new")
    func randomEdits() throws {
        var random = SeededRandom(seed: 2_026_1125)
        var current = Poll()
        var kinds: Set<JSONPatchOperation.Kind> = []
        for step in 0 ..< 3_000 {
            let next = Self.edit(current, &random)
            let patch = try JSONPatch(from: current, to: next)
            kinds.formUnion(patch.map(\.op))
            var json = try JSONValue(encoding: current)
            try json.apply(try WireJSON.decode(JSONPatch.self, from: WireJSON.encode(patch)))
            #expect(json == (try JSONValue(encoding: next)), "step \(step): \(patch)")
            current = next
        }
        #expect(kinds.isSuperset(of: [.add, .remove, .replace]), "only \(kinds)")
    }

    @Test("a hand-written diff that leaves a field out is caught by the patch check")
    func checkCatchesMissingField() {
        struct Forgetful: Codable, Equatable, Diffable {
            var open = true
            var closed = false
            func appendPatch(from old: Forgetful, at path: JSONPointer, to patch: inout JSONPatch) throws {
                try patch.appendField("open", old.open, open, at: path)
            }
        }
        var closed = Forgetful()
        closed.open = false
        closed.closed = true
        #expect(throws: PatchCheck.Failure.self) { try PatchCheck.verify(from: Forgetful(), to: closed) }
        do {
            try PatchCheck.verify(from: Forgetful(), to: closed)
        } catch {
            #expect(error.description.contains("/closed"), "\(error)")
        }
    }

    static func edit(_ poll: Poll, _ random: inout SeededRandom) -> Poll {
        var poll = poll
        func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for _ in 0 ... below(3) {
            switch below(12) {
            case 0: poll.question = ["lunch?", "dinner?", "", "é"][below(4)]
            case 1: poll.options.append(Option(id: (poll.options.map(\.id).max() ?? 0) + 1, text: "option \(below(100))", by: below(2) == 0 ? nil : "ann"))
            case 2: if !poll.options.isEmpty { poll.options.remove(at: below(poll.options.count)) }
            case 3: if !poll.options.isEmpty { poll.options[below(poll.options.count)].votes += 1 }
            case 4: if !poll.options.isEmpty { let index = below(poll.options.count); poll.options[index].by = poll.options[index].by == nil ? "bob" : nil }
            case 5: poll.closed.toggle()
            case 6: poll.winner = below(3) == 0 ? nil : below(5)
            case 7: poll.note = below(3) == 0 ? nil : Note(text: "n\(below(3))", pinned: below(2) == 0)
            case 8: if below(2) == 0 { poll.tally["v\(below(4))"] = below(3) } else { poll.tally["v\(below(4))"] = nil }
            case 9: poll.phase = [Phase.open, .closing(at: below(60)), .closed(reason: "done")][below(3)]
            case 10: poll.history = below(4) == 0 ? [] : poll.history + [below(9)]
            default: poll.ratio = Double(below(4)) / 4
            }
        }
        return poll
    }
}
