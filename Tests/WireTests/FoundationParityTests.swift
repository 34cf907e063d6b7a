import ActorNode
import FoundationEssentials
import Testing
@testable import TodoContract
@testable import Wire

/// The wire's JSON text is byte for byte what Foundation's JSONEncoder wrote before it
/// (`.sortedKeys`, `.withoutEscapingSlashes`), and what Foundation wrote still reads back: the
/// journal on disk and clients that compare text keep working.
@Suite("JSON codec: parity with Foundation")
struct FoundationParityTests {
    private static func foundationBytes(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Encodes with both and expects the same bytes.
    @discardableResult
    private func expectSameBytes<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let ours = try WireJSON.encode(value)
        let theirs = Self.escapingTerminalControls(try Self.foundationBytes(value))
        #expect(ours == theirs, "\(String(decoding: ours, as: UTF8.self)) != \(String(decoding: theirs, as: UTF8.self))", sourceLocation: sourceLocation)
        return theirs
    }

    /// Encodes with both, expects the same bytes, and expects both texts to decode to `value`.
    private func expectParity<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = try WireJSON.encode(value)
        let theirs = try expectSameBytes(value, sourceLocation: sourceLocation)
        #expect(try WireJSON.decode(T.self, from: theirs) == value, sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode(T.self, from: Data(ours)) == value, sourceLocation: sourceLocation)
    }

    /// Foundation's JSON with DEL and the C1 controls escaped, as the wire writes them (JSON
    /// allows both; the wire escapes them so that printed JSON cannot drive a terminal).
    static func escapingTerminalControls(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        func escape(_ codePoint: UInt8) {
            result += Array("\\u00".utf8) + Array(String(codePoint, radix: 16).utf8)
        }
        while index < bytes.count {
            if bytes[index] == 0x7f {
                escape(0x7f)
                index += 1
            } else if bytes[index] == 0xc2, index + 1 < bytes.count, (0x80 ... 0x9f).contains(bytes[index + 1]) {
                escape(bytes[index + 1])
                index += 2
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// Texts with what escaping must get right: quotes, backslashes, slashes, every control
    /// character, DEL, non-ASCII of every length, line separators, combining marks.
    static let awkwardTexts: [String] = [
        "", "buy milk", "a\"b", "back\\slash", "a/b</script>", "tab\there", "line\nbreak\r\n",
        String((0 ..< 0x20).map { Character(Unicode.Scalar($0)!) }), "\u{7F}", "\u{80}\u{9B}\u{9F}\u{A0}", "é", "e\u{301}", "€", "😀👍🏽",
        "\u{2028}\u{2029}", "\u{FEFF}", "日本語", "\u{10FFFF}", "~0~1", "{\"not\":\"json\"}",
    ]

    static func randomText(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\u{1}", "\u{1F}", "é", "ß", "€", "😀", "\u{301}", "\u{2028}", "x y"]
        return (0 ..< Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    /// Doubles where writing them goes wrong first: whole numbers around 2^53 and 1e16,
    /// exponents, subnormals, negative zero, and random bit patterns.
    static func interestingDoubles() -> [Double] {
        var doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 0.5, 1.5, 100, 1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e23, 1e300, 1e-4, 1e-5, 1e-7,
            123_456_789.125, 1_767_225_660.5, 1_767_225_660, 0x1p52, 0x1p53, 0x1p53 + 2, 0x1p63, 0x1p64,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .pi, 1.0 / 3, 2.0 / 3, 0.1 + 0.2, 9_007_199_254_740_991, 4_503_599_627_370_497,
        ]
        var random = SeededRandom(seed: 21)
        for _ in 0 ..< 3_000 {
            let double = Double(bitPattern: random.next())
            if double.isFinite { doubles.append(double) }
        }
        for exponent in -30 ... 30 {
            doubles.append(Double(sign: .plus, exponent: exponent * 10, significand: 1.25))
            doubles.append((Double(random.next() % 1_000_000) / 1000) * Double(sign: .plus, exponent: exponent, significand: 1))
        }
        return doubles
    }

    @Test("every action, as its own JSON and inside an envelope")
    func actions() throws {
        var actions: [AppAction] = [
            .todo(.clear), .todo(.remove(id: 3)), .todo(.toggle(id: -1)), .todo(.move(id: 3, position: 1)),
            .counter(.increment), .counter(.decrement), .counter(.reset), .counter(.randomize), .counter(.set(value: Int.min)),
            .timer(.start(id: 3, seconds: nil)), .timer(.start(id: 3, seconds: 60)), .timer(.stop), .timer(.pick),
        ]
        actions += Self.awkwardTexts.map { .todo(.add(text: $0)) } + Self.awkwardTexts.map { .todo(.edit(id: Int.max, text: $0)) }
        actions += Self.interestingDoubles().prefix(300).map { .timer(.tick(at: $0)) }
        for (index, action) in actions.enumerated() {
            try expectParity(action)
            try expectParity(ClientMessage<AppAction>.action(ActionRequest(client: "6F9619FF-8B86-D011-B42D-00CF4FC964FF", seq: UInt64(index + 1), action: action)))
            try expectParity(JournalEntry(revision: UInt64(index), at: 1_767_225_600.125, client: index % 2 == 0 ? "c" : nil, seq: index % 2 == 0 ? 5 : nil, action: action))
        }
    }

    @Test("every client and server message")
    func messages() throws {
        try expectParity(ClientMessage<AppAction>.hello(Hello(role: .watcher, client: "c/1", name: "shell-client attach")))
        try expectParity(ClientMessage<AppAction>.bye(Bye()))
        try expectParity(ClientMessage<AppAction>.bye(Bye(reason: "done")))
        let state = AppState(todo: TodoState(items: [TodoItem(id: 1, text: "a\"b/c", done: true, pomodoros: 2)], nextId: 2),
                             counter: CounterState(value: -4), timer: TimerState(item: 1, running: true, remaining: 59, deadline: 1_767_225_660.25))
        let server: [ServerMessage<AppState>] = [
            .welcome(Welcome(core: "core-1", pid: 4242, shells: 2, revision: 9, snapshot: state)),
            .ack(Ack(seq: 1, revision: 2)),
            .reject(Reject(seq: 3, code: "unknown_item", message: "no item with id 9")),
            .rendition(Rendition(revision: 5, content: .snapshot(state))),
            .rendition(Rendition(revision: 6, content: .patch([
                .replace(JSONPointer("/todo/items/0/done")!, .bool(false)),
                .add(JSONPointer("/todo/items/-")!, .object(["id": .integer(2), "text": .string("é\n"), "done": .bool(false)])),
                .remove(JSONPointer("/a~1b/c~0d")!),
                .move(from: JSONPointer("/todo/items/0")!, to: JSONPointer("/todo/items/1")!),
                .replace(JSONPointer("/timer/deadline")!, .double(1_767_225_660.5)),
                .replace(JSONPointer("/timer/item")!, .null),
                JSONPatchOperation(op: .copy, path: JSONPointer("/x")!, from: JSONPointer("/y")!),
                JSONPatchOperation(op: .test, path: JSONPointer("/z")!, value: .array([.integer(-3), .string(""), .object([:])])),
            ]))),
            .notice(Notice(text: "focus on #3 is complete")),
            .presence(Presence(shells: 3)),
            .error(ErrorMessage(.versionMismatch, "speak 1", protocolVersion: 1)),
            .error(ErrorMessage(.badFrame, "at hello: missing \"name\"")),
            .bye(Bye(reason: "stopping")),
        ]
        for message in server {
            try expectParity(message)
        }
    }

    @Test("states after many random edits, with awkward texts and doubles")
    func states() throws {
        var random = SeededRandom(seed: 5)
        let doubles = Self.interestingDoubles()
        var state = AppState()
        for step in 0 ..< 400 {
            state = DiffableTests.randomEdit(of: state, using: &random)
            if !state.todo.items.isEmpty, step % 3 == 0 {
                state.todo.items[Int(random.next() % UInt64(state.todo.items.count))].text = Self.randomText(&random)
            }
            if step % 4 == 0 {
                state.timer = TimerState(item: Int(random.next() % 50), running: true, remaining: Int(random.next() % 1500),
                                         deadline: doubles[Int(random.next() % UInt64(doubles.count))])
            }
            try expectParity(state)
            let snapshot = try expectSameBytes(SnapshotContent(revision: UInt64(step), at: 1_767_225_600.5, state: state, ledger: ClientLedger()))
            #expect(try WireJSON.decode(SnapshotContent<AppState>.self, from: snapshot).state == state)
        }
    }

    @Test("doubles of every magnitude are written as Foundation writes them")
    func doubles() throws {
        let doubles = Self.interestingDoubles()
        try expectParity(doubles)
        for double in doubles {
            try expectParity(TimerState(deadline: double))
        }
    }

    @Test("floats are written as their own shortest text, as Foundation writes them")
    func floats() throws {
        struct Reading: Codable, Equatable { var value: Float }
        var random = SeededRandom(seed: 13)
        var floats: [Float] = [0, -0.0, 0.1, 1.5, 3.4e38, .leastNonzeroMagnitude, 16_777_216, .pi]
        for _ in 0 ..< 1_000 {
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if float.isFinite { floats.append(float) }
        }
        for float in floats {
            try expectParity(Reading(value: float))
        }
    }

    @Test("integers of every width, at their limits")
    func integers() throws {
        struct Widths: Codable, Equatable {
            var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
            var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
        }
        try expectParity(Widths(int: .min, int8: .min, int16: .min, int32: .min, int64: .min, uint: 0, uint8: 0, uint16: 0, uint32: 0, uint64: 0))
        try expectParity(Widths(int: .max, int8: .max, int16: .max, int32: .max, int64: .max,
                                uint: UInt(Int64.max), uint8: .max, uint16: .max, uint32: .max, uint64: UInt64(Int64.max)))
        try expectParity([0, 1, -1, 10, 99, 100, 1_000_000, Int.max / 3])
    }

    @Test("keys are sorted by their UTF-8 bytes, non-ASCII and escaped keys included")
    func keys() throws {
        var random = SeededRandom(seed: 17)
        for _ in 0 ..< 200 {
            var dictionary: [String: Int] = [:]
            for _ in 0 ..< Int(random.next() % 12) {
                dictionary[Self.randomText(&random)] = Int(random.next() % 100)
            }
            try expectParity(dictionary)
        }
        try expectParity(["B": 1, "Z": 2, "_": 3, "a/b": 4, "a10": 5, "a2": 6, "b": 7, "e\u{301}x": 8, "g": 9, "z": 10, "é": 11, "ｆ": 12, "": 13])
        try expectParity([1: "a", 10: "b", 2: "c", -1: "d"])
    }

    @Test("Date keeps Foundation's default: seconds since 2001 as a number, both ways")
    func dates() throws {
        struct Stamped: Codable, Equatable { var at: Date; var when: [Date] }
        let dates = [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 12.5),
                     Date(timeIntervalSince1970: 1_767_225_600.125), Date(timeIntervalSinceReferenceDate: -1e9)]
        for date in dates {
            try expectParity(Stamped(at: date, when: [date, date.addingTimeInterval(0.001)]))
        }
        #expect(try WireJSON.decode(Date.self, from: Array("12.5".utf8)) == Date(timeIntervalSinceReferenceDate: 12.5))
        #expect(try WireJSON.decode(Date.self, from: Array("12".utf8)) == Date(timeIntervalSinceReferenceDate: 12))
    }

    @Test("JSON values encode as Foundation writes them, and Foundation's text reads back as the same value")
    func jsonValues() throws {
        let value = JSONValue.object([
            "list": .array([.integer(1), .double(2.5), .double(1e20), .bool(true), .null, .string("s/é\n")]),
            "nested": .object(["b": .object([:]), "a": .array([])]),
            "big": .integer(.max), "small": .integer(.min),
        ])
        #expect(try WireJSON.encode(value) == Self.foundationBytes(value))
        #expect(try JSONSerializer.serialize(value) == Self.foundationBytes(value))
        #expect(try WireJSON.decode(JSONValue.self, from: Self.foundationBytes(value)) == value)
    }
}
