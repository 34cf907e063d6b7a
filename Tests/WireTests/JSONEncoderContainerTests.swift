import ActorNode
import Testing
@testable import TodoContract
@testable import Wire

/// The encoder is a whole `Encoder`: containers may be written in any order, super encoders
/// used after their container moved on; what JSON cannot carry is refused at its path.
@Suite("JSON encoder: containers, values and refusals")
struct JSONEncoderContainerTests {
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// Writes into containers out of order and records the paths it sees.
    final class Interleaved: Encodable {
        enum Keys: String, CodingKey { case z, a, nested, list, parent, late }
        /// The coding paths seen during the last encode.
        var paths: [String] = []

        func encode(to encoder: any Encoder) throws {
            var paths = [JSONEncoderContainerTests.path(encoder.codingPath)]
            var container = encoder.container(keyedBy: Keys.self)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            let parent = container.superEncoder()
            let late = container.superEncoder(forKey: .late)
            try container.encode(1, forKey: .z)
            try list.encode("first")
            try nested.encode(true, forKey: .a)
            var element = list.nestedContainer(keyedBy: Keys.self)
            paths.append(JSONEncoderContainerTests.path(element.codingPath))
            try container.encode("a", forKey: .a)
            try element.encode(2, forKey: .z)
            var parentContainer = parent.singleValueContainer()
            try parentContainer.encode("from super")
            paths.append(JSONEncoderContainerTests.path(parent.codingPath))
            var lateContainer = late.unkeyedContainer()
            try lateContainer.encode(Int8(3))
            paths.append(JSONEncoderContainerTests.path(nested.codingPath))
            paths.append(JSONEncoderContainerTests.path(list.codingPath))
            paths.append(JSONEncoderContainerTests.path(lateContainer.codingPath))
            // Asking again for the same container gives the same object.
            var again = encoder.container(keyedBy: Keys.self)
            try again.encodeNil(forKey: .parent)
            self.paths = paths
        }
    }

    @Test("containers written out of order, and super encoders used late, all land where they belong")
    func interleaved() throws {
        let interleaved = Interleaved()
        let text = try WireJSON.string(interleaved)
        #expect(text == #"{"a":"a","late":[3],"list":["first",{"z":2}],"nested":{"a":true},"parent":null,"super":"from super","z":1}"#)
        #expect(interleaved.paths == ["", "list.1", "super", "nested", "list", "late"])
        #expect(try JSONValue(encoding: interleaved) == JSONParser().parse(Array(text.utf8)))
    }

    @Test("a key encoded twice keeps its last value, in text and as a value")
    func repeatedKey() throws {
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: AnyCodingKey.self)
                try container.encode(1, forKey: AnyCodingKey("b"))
                try container.encode(2, forKey: AnyCodingKey("a"))
                try container.encode(3, forKey: AnyCodingKey("b"))
                try container.encode("é", forKey: AnyCodingKey("é"))
                try container.encode("é again", forKey: AnyCodingKey("\u{E9}"))
            }
        }
        #expect(try WireJSON.string(Twice()) == #"{"a":2,"b":3,"é":"é again"}"#)
        #expect(try JSONValue(encoding: Twice()) == .object(["a": .integer(2), "b": .integer(3), "é": .string("é again")]))
    }

    @Test("a value that encodes nothing is an empty object inside, an error at the top")
    func nothing() throws {
        struct Silent: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Holder: Encodable { var silent = Silent() }
        #expect(try WireJSON.string(Holder()) == #"{"silent":{}}"#)
        #expect(throws: EncodingError.self) { try WireJSON.encode(Silent()) }
    }

    @Test("NaN and infinities are refused at their path")
    func nonFinite() {
        let cases: [(any Encodable, String)] = [
            (TimerState(deadline: .nan), "deadline"),
            (AppState(timer: TimerState(deadline: .infinity)), "timer.deadline"),
            (AppAction.timer(.tick(at: -.infinity)), "timer.tick.at"),
            ([1.0, .nan], "1"),
            ([["x": Float.nan]], "0.x"),
            (JSONPatchOperation.replace(JSONPointer(), .array([.double(1), .object(["k": .double(.nan)])])), "value.1.k"),
        ]
        for (value, path) in cases {
            do {
                _ = try WireJSON.encode(value)
                Issue.record("encoded \(value)")
            } catch let EncodingError.invalidValue(_, context) {
                #expect(Self.path(context.codingPath) == path)
                #expect(context.debugDescription.hasSuffix("cannot be written as JSON (only finite numbers can)"))
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
        #expect(throws: EncodingError.self) { try JSONSerializer.serialize(.array([.double(.nan)])) }
    }

    @Test("unsigned integers above 2^63-1 are refused rather than rounded")
    func largeUnsigned() throws {
        #expect(try WireJSON.string([UInt64(Int64.max)]) == "[9223372036854775807]")
        do {
            _ = try WireJSON.encode(Ack(seq: .max, revision: 1))
            Issue.record("encoded UInt64.max")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(Self.path(context.codingPath) == "seq")
            #expect(context.debugDescription == "the number 18446744073709551615 is above 2^63-1, the largest whole number this wire carries exactly")
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: [UInt(Int64.max) + 1]) }
    }

    @Test("a value's JSON is what its text reads back as")
    func valueMatchesText() throws {
        var random = SeededRandom(seed: 31)
        var state = AppState()
        for step in 0 ..< 300 {
            state = DiffableTests.randomEdit(of: state, using: &random)
            if step % 5 == 0 {
                let deadlines: [Double] = [1_767_225_660, 1_767_225_660.5, -0.0, 0x1p53, 0x1p53 + 2, 1e21, 3]
                state.timer.deadline = deadlines[Int(random.next() % UInt64(deadlines.count))]
            }
            let direct = try JSONValue(encoding: state)
            #expect(direct == (try JSONParser().parse(WireJSON.encode(state))))
            #expect(try direct.decode(as: AppState.self) == state)
        }
        #expect(try JSONValue(encoding: 3.0) == .integer(3))
        #expect(try JSONValue(encoding: 1e21) == .double(1e21))
        #expect(try JSONValue(encoding: Float(0.1)) == .double(0.1))
        #expect(try JSONValue(encoding: Float(1e20)) == .double(1e20))
    }

    @Test("strings are escaped as the wire writes them")
    func escaping() throws {
        #expect(try WireJSON.string("\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1F}\u{7F}\u{9B}é😀\u{2028}") == #""\"\\/\b\f\n\r\t\u0000\u001f\u007f\u009b"# + "é😀\u{2028}\"")
    }
}
